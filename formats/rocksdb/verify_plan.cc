// How verify finds and checks the RocksDB family's files: database directories, single SSTs, and
// raw full filters through the generic verifier.
#include <string>
#include <vector>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "formats/rocksdb/family.h"
#include "rocksdb/filter_sizing.h"
#include "rocksdb/sst/verify.h"

namespace bloomcodec::rocksdb {
namespace {

Result<bool> PlanDirectory(const std::string& dir, const VerifyOptions&,
                           std::vector<VerifyTask>& tasks) {
  if (!LooksLikeRocksDb(dir)) return false;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, FindSstFiles(dir));
  for (std::string& table : tables) {
    tasks.push_back([table = std::move(table), dir] { return VerifySst(table, nullptr, dir); });
  }
  return true;
}

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kSst)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a RocksDB SST (its keys: --from-table)");
  }
  if (plan.options.key_kind == KeyKind::kPlain) {
    return Status::InvalidArgument("--key-kind plain does not apply to rocksdb-sst: " + path +
                                   " holds internal keys");
  }
  // The table's own keys are always checked; --from-table only says so explicitly.
  const std::string group = plan.group;
  const KeyList* keys = plan.keys;
  std::optional<PrefixExtractor> prefix;
  if (!plan.options.prefix_extractor.empty()) {
    BLOOMCODEC_ASSIGN_OR_RETURN(prefix, PrefixExtractor::FromSpec(plan.options.prefix_extractor));
  }
  tasks.push_back([path, keys, group, prefix] { return VerifySst(path, keys, group, prefix); });
  return true;
}

// The trailer decides the kind. Only the Bloom kinds have a fill to judge: a Ribbon solution is
// about half ones whatever it holds, and the other kinds have no bits.
std::vector<engine::FilterFill> FiltersOf(const FormatCodec*, ByteSpan file,
                                          std::string_view source, FileReport& report) {
  std::vector<engine::FilterFill> filters;
  Result<FullFilterReader> f = FullFilterReader::Parse(file, source);
  const std::uint64_t trailer_at = file.size() > 5 ? file.size() - 5 : 0;
  if (f.ok() && f->kind() == FullFilterKind::kAlwaysMatch) {
    report.Add(Severity::kWarning, finding_kind::kMissingFilter,
               "RocksDB answers \"may match\" for every key: " +
                   std::string(f->always_match_reason()),
               trailer_at);
  }
  if (f.ok() && f->OriginalReadsOutside()) {
    report.Add(Severity::kError, finding_kind::kStructure,
               "the trailer's geometry makes RocksDB read outside the filter (undefined answers)",
               trailer_at);
  }
  if (!f.ok() ||
      (f->kind() != FullFilterKind::kLegacyBloom && f->kind() != FullFilterKind::kFastLocalBloom)) {
    return filters;
  }
  engine::FilterFill one;
  one.stats = ComputeFillStatistics(f->bit_count(), f->bits_set(), f->num_probes());
  one.allowed = KeysAllowedByPolicy(*f);
  filters.push_back(one);
  return filters;
}

}  // namespace

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.plan_directory = PlanDirectory;
  hooks.directory_rank = 0;  // before LevelDB: a RocksDB database also looks like one
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  return hooks;
}

}  // namespace bloomcodec::rocksdb
