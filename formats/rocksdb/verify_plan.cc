// How verify finds and checks the RocksDB family's files: database directories, single SSTs, and
// raw full filters through the generic verifier.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "blocktable/file_names.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/options.h"
#include "formats/rocksdb/family.h"
#include "manifest/database_plan.h"
#include "rocksdb/filter_sizing.h"
#include "rocksdb/sst/rebuild_tap.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/table_files.h"
#include "rocksdb/sst/verify.h"

namespace bloomcodec::rocksdb {
namespace {

bool IsDatabaseSstName(std::string_view name) { return blocktable::IsSstFileName(name); }

Result<bool> PlanDirectory(const std::string& dir, const VerifyOptions& options,
                           std::vector<VerifyTask>& tasks) {
  if (!LooksLikeRocksDb(dir)) return false;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, FindSstFiles(dir));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / "CURRENT", ec)) {
    // A folder of SSTs (any names): a set, no levels.
    for (std::string& table : tables) {
      tasks.push_back([table = std::move(table), dir] { return VerifySst(table, nullptr, dir); });
    }
    return true;
  }
  // A repair's tap (rocksdb/sst/rebuild_tap.h), set by the library's repair only.
  std::shared_ptr<RebuildTap> tap;
  if (const RebuildTapOption* o = options.family.Find<RebuildTapOption>()) tap = o->tap;
  const manifest::TableCheck check{"rocksdb-sst",
                                   [tap](const std::string& path, const std::string& group) {
                                     return VerifySst(path, nullptr, group, std::nullopt,
                                                      tap.get());
                                   },
                                   SstKeyRange,
                                   {}};
  manifest::PlanDatabase(
      dir, manifest::ReadDatabase(dir, manifest::Flavor::kRocksDb, {"sst"}, IsDatabaseSstName),
      check, tables, tasks);
  return true;
}

Result<std::optional<Document>> InspectDirectory(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / "CURRENT", ec) ||
      !LooksLikeRocksDb(dir)) {
    return std::optional<Document>();
  }
  return std::optional<Document>(manifest::InspectDatabase(
      manifest::ReadDatabase(dir, manifest::Flavor::kRocksDb, {"sst"}, IsDatabaseSstName)));
}

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kSst)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a RocksDB SST (its keys: --from-table)");
  }
  const RocksDbOptions mine = plan.options.family.Get<RocksDbOptions>();
  if (mine.key_kind == KeyKind::kPlain) {
    return Status::InvalidArgument("--key-kind plain does not apply to rocksdb-sst: " + path +
                                   " holds internal keys");
  }
  // The table's own keys are always checked; --from-table only says so explicitly.
  const std::string group = plan.group;
  const KeyStream* keys = plan.keys;
  std::optional<PrefixExtractor> prefix;
  if (!mine.prefix_extractor.empty()) {
    BLOOMCODEC_ASSIGN_OR_RETURN(prefix, PrefixExtractor::FromSpec(mine.prefix_extractor));
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

Result<manifest::TableKeyRange> SstKeyRange(const std::string& path) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
  SstOpenOptions open;
  open.verify_checksums = true;  // a damaged block is verify's finding, not a key range
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(in.bytes(), path, open));
  std::vector<blocktable::BlockHandle> blocks;
  BLOOMCODEC_RETURN_IF_ERROR(
      sst.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& handle) {
        blocks.push_back(handle);
        return Status();
      }));
  manifest::TableKeyRange range;
  BLOOMCODEC_RETURN_IF_ERROR(manifest::FirstAndLastKeys(
      blocks, [&](const blocktable::BlockHandle& h) { return sst.ReadBlock(h, "data block"); },
      blocktable::KeyOrder::kInternal, range));
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachRangeDeletion([&](ByteSpan start, ByteSpan end) {
    const ByteSpan user = manifest::UserKey(start);
    range.tombstone_bounds.emplace_back(user.begin(), user.end());
    range.tombstone_bounds.emplace_back(end.begin(), end.end());
    return Status();
  }));
  return range;
}

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.plan_directory = PlanDirectory;
  hooks.directory_rank = 0;  // before LevelDB: a RocksDB database also looks like one
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  hooks.inspect_directory = InspectDirectory;
  return hooks;
}

}  // namespace bloomcodec::rocksdb
