// How verify finds and checks the LevelDB family's files: database directories, single tables,
// and raw filters and filter blocks through the generic verifier.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "blocktable/file_names.h"
#include "blocktable/footer.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/options.h"
#include "formats/leveldb/family.h"
#include "leveldb/database_writer.h"
#include "leveldb/inspect.h"
#include "leveldb/table/rebuild_tap.h"
#include "leveldb/table/table_files.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/verify.h"
#include "manifest/database_plan.h"

namespace bloomcodec::leveldb {
namespace {

namespace fs = std::filesystem;

// True when the file's last 8 bytes are LevelDB's table magic (read from the tail only).
bool EndsInTableMagic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamoff size = in.tellg();
  if (size < static_cast<std::streamoff>(blocktable::kLevelDbFooterSize)) return false;
  in.seekg(size - 8);
  std::uint8_t tail[8];
  if (!in.read(reinterpret_cast<char*>(tail), 8)) return false;
  std::uint64_t magic = 0;
  for (int i = 7; i >= 0; --i) magic = magic << 8 | tail[i];
  return magic == blocktable::kLevelDbTableMagic;
}

// A folder of tables under any names (an export, a backup): every regular file that ends in
// LevelDB's magic, when the folder has no CURRENT. Sorted by path.
std::vector<std::string> TableSet(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::exists(fs::path(dir) / "CURRENT", ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && EndsInTableMagic(it->path())) {
      out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The first and last user keys of a database table (LevelDB writes no range deletions).
Result<manifest::TableKeyRange> KeyRangeOf(const std::string& path) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
  TableOpenOptions options;
  options.key_kind = KeyKind::kUser;
  options.verify_checksums = true;  // a damaged block is verify's finding, not a key range
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table, TableReader::Open(in.bytes(), path, options));
  std::vector<blocktable::BlockHandle> blocks;
  BLOOMCODEC_RETURN_IF_ERROR(
      table.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& handle) {
        blocks.push_back(handle);
        return Status();
      }));
  manifest::TableKeyRange range;
  BLOOMCODEC_RETURN_IF_ERROR(manifest::FirstAndLastKeys(
      blocks, [&](const blocktable::BlockHandle& h) { return table.ReadDataBlock(h); },
      table.key_order(), range));
  return range;
}

bool IsDatabaseTableName(std::string_view name) { return blocktable::IsTableFileName(name); }

Result<bool> PlanDirectory(const std::string& dir, const VerifyOptions& options,
                           std::vector<VerifyTask>& tasks) {
  std::error_code ec;
  const bool has_current = fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
  // The tables of one directory share a writer: a table whose own keys cannot tell takes the
  // one its LOG or siblings show (database_writer.h).
  const auto verify_all = [&](std::vector<std::string> tables) {
    auto writer = std::make_shared<const DatabaseWriter>(dir, tables);
    for (std::string& table : tables) {
      tasks.push_back(
          [table = std::move(table), dir, writer] { return writer->Verify(table, dir); });
    }
  };
  if (!LooksLikeDatabase(dir)) {
    // Not a database: a set of tables under other names is verified as one group.
    std::vector<std::string> set = TableSet(dir);
    if (set.empty()) return false;
    verify_all(std::move(set));
    return true;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, FindTables(dir));
  if (!has_current) {
    // A folder of NNNNNN.ldb without CURRENT: a copy of tables, with other tables maybe.
    std::vector<std::string> set = TableSet(dir);
    for (const std::string& t : set) {
      if (!std::binary_search(tables.begin(), tables.end(), t)) tables.push_back(t);
    }
    std::sort(tables.begin(), tables.end());
    verify_all(std::move(tables));
    return true;
  }
  // A repair's tap (leveldb/table/rebuild_tap.h), set by the library's repair only.
  std::shared_ptr<RebuildTap> tap;
  if (const RebuildTapOption* o = options.family.Find<RebuildTapOption>()) tap = o->tap;
  auto writer = std::make_shared<const DatabaseWriter>(dir, tables, std::move(tap));
  const manifest::TableCheck check{"leveldb-table",
                                   [writer](const std::string& path, const std::string& group) {
                                     return writer->Verify(path, group);
                                   },
                                   KeyRangeOf,
                                   {}};
  manifest::PlanDatabase(
      dir,
      manifest::ReadDatabase(dir, manifest::Flavor::kLevelDb, {"ldb", "sst"}, IsDatabaseTableName),
      check, tables, tasks);
  return true;
}

Result<std::optional<Document>> InspectDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "CURRENT", ec)) return std::optional<Document>();
  return std::optional<Document>(manifest::InspectDatabase(manifest::ReadDatabase(
      dir, manifest::Flavor::kLevelDb, {"ldb", "sst"}, IsDatabaseTableName)));
}

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kTable)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a LevelDB table (its keys: --from-table)");
  }
  const std::string group = plan.group;
  const LevelDbOptions mine = plan.options.family.Get<LevelDbOptions>();
  const KeyKind kind = mine.key_kind;
  const FilterWriter writer = mine.writer;
  const KeyStream* keys = plan.keys;
  // An unknown key kind the check needs is the caller's to give (--key-kind), not damage.
  BLOOMCODEC_RETURN_IF_ERROR(CheckKeyKindKnown(path, kind, keys != nullptr));
  BLOOMCODEC_RETURN_IF_ERROR(CheckWriterFits(path, writer));
  const Bloom2Build* build = FindBloom2Build(mine.basho_build);  // null: identified per table
  tasks.push_back([path, kind, keys, group, writer, build] {
    return VerifyTable(path, kind, keys, group, writer, build);
  });
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
  hooks.directory_description =
      "a LevelDB database (CURRENT, NNNNNN.ldb / .sst) or a folder of LevelDB tables";
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  hooks.format_by_name_only = FormatByNameOnly;
  hooks.inspect_directory = InspectDirectory;
  return hooks;
}

}  // namespace bloomcodec::leveldb
