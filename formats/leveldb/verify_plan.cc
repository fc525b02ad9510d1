// How verify finds and checks the LevelDB family's files: database directories, single tables,
// and raw filters and filter blocks through the generic verifier.
#include <string>
#include <vector>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "formats/leveldb/family.h"
#include "leveldb/inspect.h"
#include "leveldb/table/verify.h"

namespace bloomcodec::leveldb {
namespace {

Result<bool> PlanDirectory(const std::string& dir, std::vector<VerifyTask>& tasks) {
  if (!LooksLikeDatabase(dir)) return false;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, FindTables(dir));
  for (std::string& table : tables) {
    tasks.push_back([table = std::move(table), dir] {
      return VerifyTable(table, KeyKind::kUser, nullptr, dir);
    });
  }
  return true;
}

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kTable)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a LevelDB table (its keys: --from-table)");
  }
  const std::string group = plan.group;
  KeyKind kind = plan.options.key_kind;
  const KeyList* keys = plan.keys;
  // An unknown key kind the check needs is the caller's to give (--key-kind), not damage.
  BLOOMCODEC_RETURN_IF_ERROR(CheckKeyKindKnown(path, kind, keys != nullptr));
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterWriter writer, ParseFilterWriter(plan.options.writer));
  BLOOMCODEC_RETURN_IF_ERROR(CheckWriterFits(path, writer));
  tasks.push_back(
      [path, kind, keys, group, writer] { return VerifyTable(path, kind, keys, group, writer); });
  return true;
}

void AddFilter(ByteSpan bytes, HashFlavor flavor, std::uint64_t offset,
               std::vector<engine::FilterFill>& out) {
  // Shorter than 2 bytes the reader answers "absent" for everything: no bits to judge (a key
  // given is a false negative already).
  if (bytes.size() < 2) return;
  const BloomFilterView view(bytes, flavor);
  engine::FilterFill f;
  f.stats = ComputeFillStatistics(view.bit_count(), view.bits_set(), view.hash_count());
  // k > 30 is a reserved encoding the reader answers "may match" for: it filters nothing.
  if (view.hash_count() > static_cast<std::uint32_t>(kMaxProbes)) {
    f.stats.false_positive_rate = 1.0;
  }
  f.allowed = KeysAllowedByPolicy(view.hash_count(), view.bit_count());
  f.offset = offset;
  out.push_back(f);
}

std::vector<engine::FilterFill> FiltersOf(const FormatCodec* format, ByteSpan file,
                                          std::string_view source, FileReport& report) {
  std::vector<engine::FilterFill> filters;
  if (format == Codec(FormatId::kBloom) || format == Codec(FormatId::kBloomLegacy)) {
    AddFilter(file,
              format == Codec(FormatId::kBloom) ? HashFlavor::kUnsignedTail
                                                : HashFlavor::kSignedTail,
              0, filters);
  } else if (format == Codec(FormatId::kFilterBlock)) {
    Result<FilterBlockLayout> layout = ParseFilterBlockLayout(file, source, 0);
    if (!layout.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, layout.status()));
      return filters;
    }
    for (std::size_t i = 0; i < layout->filters.size(); ++i) {
      const FilterRange& r = layout->filters[i];
      if (r.empty()) continue;
      const std::size_t before = filters.size();
      AddFilter(file.subspan(r.start, r.size()), HashFlavor::kUnsignedTail, r.start, filters);
      if (filters.size() > before) filters.back().probed = i == 0;
    }
  }
  return filters;
}

// A table file name (NNNNNN.ldb / .sst) whose bytes claim no format: a truncated or damaged
// table. Read as one, so the damage is a structure finding at its offset (as inside a database
// directory) rather than an undecidable format.
const FormatCodec* FormatByNameOnly(std::string_view path) {
  if (path.ends_with(".gz")) path.remove_suffix(3);
  if (path.ends_with(".ldb") || path.ends_with(".sst")) return Codec(FormatId::kTable);
  return nullptr;
}

}  // namespace

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.plan_directory = PlanDirectory;
  hooks.directory_rank = 1;  // after RocksDB: its databases look like LevelDB's
  hooks.directory_description = "a LevelDB database (CURRENT, NNNNNN.ldb / .sst)";
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  hooks.format_by_name_only = FormatByNameOnly;
  return hooks;
}

}  // namespace bloomcodec::leveldb
