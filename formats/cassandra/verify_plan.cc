// How verify finds and checks the Cassandra family's files: data directories (every SSTable's
// Filter.db against its Index.db), single Filter.db files, and row filters through the generic
// verifier.
#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "bloomcodec/cassandra/options.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "cassandra/descriptor.h"
#include "cassandra/index_db.h"
#include "cassandra/inspect.h"
#include "cassandra/verify.h"
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

std::string_view WithoutGz(std::string_view path) {
  return path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
}

// --partitioner: how Index.db keys before e are read; nullopt: from the data.
std::optional<IndexKeyForm> ForcedKeyForm(const VerifyOptions& options) {
  switch (options.family.Get<CassandraOptions>().partitioner) {
    case Partitioner::kRandom: return IndexKeyForm::kRandomPartitionerEncoded;
    case Partitioner::kOrderPreserving: return IndexKeyForm::kRaw;
    case Partitioner::kFromData: break;
  }
  return std::nullopt;
}

// A directory whose only sstable-like names are look-alikes: said in one info report of its
// own, after theirs (nothing is wrong; the exit status stays 0).
FileReport NoDatabaseReport(const std::string& dir, std::size_t lookalikes) {
  FileReport report;
  report.path = dir;
  report.Add(Severity::kInfo, finding_kind::kNoDatabase,
             "holds no database verify reads (no Cassandra sstable, LevelDB or RocksDB "
             "database): " +
                 std::to_string(lookalikes) +
                 (lookalikes == 1 ? " file name resembles an sstable component but is not one"
                                  : " file names resemble sstable components but are none"));
  return report;
}

Result<bool> PlanDirectory(const std::string& dir, const VerifyOptions& options,
                           std::vector<VerifyTask>& tasks) {
  std::vector<SkippedName> skipped;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<SstableFiles> sstables, FindSstables(dir, &skipped));
  // Nothing that even resembles an sstable: not a Cassandra directory (the caller says so).
  if (sstables.empty() && skipped.empty()) return false;
  const bool no_sstable = sstables.empty();
  for (SstableFiles& s : sstables) {
    s.forced_key_form = ForcedKeyForm(options);
    tasks.push_back([s = std::move(s)] { return VerifySstable(s); });
  }
  std::sort(skipped.begin(), skipped.end(),
            [](const SkippedName& a, const SkippedName& b) { return a.path < b.path; });
  const std::size_t lookalikes = skipped.size();
  for (SkippedName& s : skipped) {
    tasks.push_back([s = std::move(s)] { return SkippedReport(s); });
  }
  if (no_sstable) tasks.push_back([dir, lookalikes] { return NoDatabaseReport(dir, lookalikes); });
  return true;
}

// The era of a Filter.db format; unset for the row filter (generic verifier).
std::optional<Era> FilterDbEraOf(const FormatCodec* format) {
  const std::optional<Era> era = EraOf(format);
  if (!era || Facts(*era).component != "Filter.db") return std::nullopt;
  return era;
}

// A Filter.db with keys from --keys, --index or the Index.db beside it.
Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  const std::optional<Era> era_of = FilterDbEraOf(plan.format);
  if (!era_of) return false;
  const Era era = *era_of;
  const std::string& path = plan.path;
  const KeyStream* keys = plan.keys;
  std::string version;
  if (auto d = ParseDescriptor(WithoutGz(path)); d.ok()) version = d->version;
  std::string index;
  if (plan.options.key_source == KeySource::kIndexDb) {
    index = plan.options.index_path;
    // The Index.db was named by the user: if it cannot be opened at all that is bad input
    // (exit 2); damage inside it is a finding of the verification.
    BLOOMCODEC_RETURN_IF_ERROR(InputFile::Open(index).status());
  } else if (plan.options.key_source == KeySource::kNone) {
    // Without a key source, the sstable's own Index.db next to it (same name up to the
    // component) supplies the keys, as in a directory.
    std::string_view name = WithoutGz(path);
    if (name.ends_with("Filter.db")) {
      std::string sibling = std::string(name.substr(0, name.size() - 9)) + "Index.db";
      std::error_code ec;
      if (fs::is_regular_file(sibling, ec)) index = sibling;
    }
  }
  const std::optional<IndexKeyForm> forced = ForcedKeyForm(plan.options);
  tasks.push_back([path, era, version, keys, index, forced] {
    return VerifyFilterFile(path, era, version, keys, index, forced);
  });
  return true;
}

// The row filter's one bloom filter, for the generic verifier.
std::vector<engine::FilterFill> FiltersOf(const FormatCodec* format, ByteSpan file,
                                          std::string_view source, FileReport&) {
  std::vector<engine::FilterFill> filters;
  if (format != Codec(Era::kV10Row)) return filters;
  Result<RowFilter> row = RowFilter::Parse(file, source);
  if (!row.ok() || row->v10() == nullptr) return filters;  // Probe has reported it
  const V10Filter& f = *row->v10();
  engine::FilterFill one;
  one.stats = ComputeFillStatistics(f.bit_count(), f.bits_set(), f.hash_count());
  one.allowed =
      KeysAllowedBySizing(f.signed_hash_count(), f.modulus(), kRowFilterBucketsPerElement);
  one.offset = 4 + V10Filter::kHeaderBytes;  // the length prefix, then the header
  filters.push_back(one);
  return filters;
}

}  // namespace

FileReport SkippedReport(const SkippedName& skipped) {
  FileReport report;
  report.path = skipped.path;
  report.Add(Severity::kInfo, finding_kind::kNotSstable,
             "not an sstable component, skipped: " + skipped.reason);
  return report;
}

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.plan_directory = PlanDirectory;
  hooks.directory_rank = 2;
  hooks.directory_description =
      "a Cassandra data directory (no SSTable component names such as Standard1-hc-1-Filter.db)";
  hooks.plan_file = PlanFile;
  hooks.filters_of = FiltersOf;
  return hooks;
}

}  // namespace bloomcodec::cassandra
