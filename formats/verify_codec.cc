#include "verify_codec.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "cassandra/cassandra_inspect.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "leveldb/leveldb_inspect.h"
#include "rocksdb/filter_sizing.h"

namespace bloomcodec {

namespace {

// One bloom filter of the file: its fill, the most keys its parameters allow, where its bits
// start (for the finding's offset).
struct OneFilter {
  FillStatistics stats;
  std::optional<double> allowed;
  std::uint64_t offset = 0;
  bool probed = true;  // the filter Probe asks the keys of (a filter block: filter 0's)
};

void AddLevelDbFilter(ByteSpan bytes, leveldb::HashFlavor flavor, std::uint64_t offset,
                      std::vector<OneFilter>& out) {
  // Shorter than 2 bytes the reader answers "absent" for everything: no bits to judge (a key
  // given is a false negative already).
  if (bytes.size() < 2) return;
  const leveldb::BloomFilterView view(bytes, flavor);
  OneFilter f;
  f.stats = ComputeFillStatistics(view.bit_count(), view.bits_set(), view.hash_count());
  // k > 30 is a reserved encoding the reader answers "may match" for: it filters nothing.
  if (view.hash_count() > static_cast<std::uint32_t>(leveldb::kMaxProbes)) {
    f.stats.false_positive_rate = 1.0;
  }
  f.allowed = leveldb::KeysAllowedByPolicy(view.hash_count(), view.bit_count());
  f.offset = offset;
  out.push_back(f);
}

// The filters of `file`; a layout the strict parser refuses is a structure finding (the lenient
// reader Probe uses answers "may match" for it, silently).
std::vector<OneFilter> FiltersOf(std::string_view format, ByteSpan file, std::string_view source,
                                 FileReport& report) {
  std::vector<OneFilter> filters;
  if (format == "leveldb-bloom" || format == "leveldb-bloom-legacy") {
    AddLevelDbFilter(file,
                     format == "leveldb-bloom" ? leveldb::HashFlavor::kUnsignedTail
                                               : leveldb::HashFlavor::kSignedTail,
                     0, filters);
  } else if (format == "leveldb-filter-block") {
    Result<leveldb::FilterBlockLayout> layout = leveldb::ParseFilterBlockLayout(file, source, 0);
    if (!layout.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, layout.status()));
      return filters;
    }
    for (std::size_t i = 0; i < layout->filters.size(); ++i) {
      const leveldb::FilterRange& r = layout->filters[i];
      if (r.empty()) continue;
      const std::size_t before = filters.size();
      AddLevelDbFilter(file.subspan(r.start, r.size()), leveldb::HashFlavor::kUnsignedTail,
                       r.start, filters);
      if (filters.size() > before) filters.back().probed = i == 0;
    }
  } else if (format.starts_with("rocksdb-")) {
    // The trailer decides the kind. Only the Bloom kinds have a fill to judge: a Ribbon solution
    // is about half ones whatever it holds, and the other kinds have no bits.
    Result<rocksdb::FullFilterReader> f = rocksdb::FullFilterReader::Parse(file, source);
    const std::uint64_t trailer_at = file.size() > 5 ? file.size() - 5 : 0;
    if (f.ok() && f->kind() == rocksdb::FullFilterKind::kAlwaysMatch) {
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
    if (!f.ok() || (f->kind() != rocksdb::FullFilterKind::kLegacyBloom &&
                    f->kind() != rocksdb::FullFilterKind::kFastLocalBloom)) {
      return filters;
    }
    OneFilter one;
    one.stats = ComputeFillStatistics(f->bit_count(), f->bits_set(), f->num_probes());
    one.allowed = rocksdb::KeysAllowedByPolicy(*f);
    filters.push_back(one);
  } else if (format == "cassandra-1.0-row") {
    Result<cassandra::RowFilter> row = cassandra::RowFilter::Parse(file, source);
    if (!row.ok() || row->v10() == nullptr) return filters;  // Probe has reported it
    const cassandra::V10Filter& f = *row->v10();
    OneFilter one;
    one.stats = ComputeFillStatistics(f.bit_count(), f.bits_set(), f.hash_count());
    one.allowed = cassandra::KeysAllowedBySizing(f.signed_hash_count(), f.modulus(),
                                                 cassandra::kRowFilterBucketsPerElement);
    one.offset = 4 + cassandra::V10Filter::kHeaderBytes;  // the length prefix, then the header
    filters.push_back(one);
  }
  return filters;
}

// The file's FillReport and any overfilled filter. `keys` (when given) judge the filter Probe
// asked; the others are judged against what their parameters allow.
void AddFill(const std::vector<OneFilter>& filters, const KeyList* keys, FileReport& report) {
  if (filters.empty()) return;
  FillReport fill;
  double weighted_fp = 0;
  double sized = 0;
  bool sized_known = true;
  std::uint64_t overfilled = 0;
  std::string first_reason;
  std::uint64_t first_offset = 0;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    const OneFilter& f = filters[i];
    const bool given = keys != nullptr && f.probed;
    const std::optional<double> expected =
        given ? std::optional<double>(static_cast<double>(keys->size())) : f.allowed;
    fill.bits += f.stats.bits;
    fill.bits_set += f.stats.bits_set;
    fill.hash_count = std::max(fill.hash_count, f.stats.hash_count);
    if (f.stats.hash_count > 0 && f.stats.bits > 0) fill.estimated_keys += f.stats.estimated_keys;
    // A block's filters are sized by one bits_per_key, so their bits weigh like their keys.
    weighted_fp += static_cast<double>(f.stats.bits) * f.stats.false_positive_rate;
    if (expected) sized += *expected; else sized_known = false;
    const std::string reason =
        OverfillReason(f.stats, expected, given ? "given" : "allowed by its size and k");
    if (!reason.empty() && overfilled++ == 0) {
      first_reason = (filters.size() > 1 ? "filter at byte " + std::to_string(f.offset) + ": "
                                         : std::string()) + reason;
      first_offset = f.offset;
    }
  }
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = fill.bits > 0 ? weighted_fp / static_cast<double>(fill.bits) : 0;
  if (sized_known) {
    fill.sized_keys = sized;
    fill.sized_keys_from = keys == nullptr ? "parameters"
                           : filters.size() == 1 ? "keys" : "keys and parameters";
  }
  report.fill = fill;
  if (overfilled > 0) {
    report.Add(Severity::kError, finding_kind::kOverfilled,
               (overfilled > 1 ? std::to_string(overfilled) + " filters overfilled; " : "") +
                   first_reason + ": the filter was damaged or built for other keys",
               first_offset);
  }
}

}  // namespace

FileReport VerifyWithCodec(const std::string& path, const FormatCodec* format,
                           const KeyList* keys, const ProbeOptions& probe) {
  FileReport report;
  report.path = path;
  report.format = std::string(format->name());
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  KeyList none;
  const KeyList& asked = keys ? *keys : none;
  std::vector<std::uint8_t> answers(asked.size());
  Status s = format->Probe(in->bytes(), path, asked, probe, answers);
  if (!s.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
    return report;
  }
  report.keys_checked = asked.size();
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] == 0) report.AddFalseNegative(asked[i]);
  }
  report.FinishFalseNegatives("the filter");
  AddFill(FiltersOf(format->name(), in->bytes(), path, report), keys, report);
  return report;
}

}  // namespace bloomcodec
