// Pebble's row-based tables in the block-table verify pipeline (blocktable/verify.h): Pebble's
// own is here (footer versions, key kinds, value prefixes, index block properties, the counts
// its properties claim, its filters and their fill); the scan and the report are the pipeline's.
#include "pebble/table/verify.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "blocktable/block_builder.h"
#include "blocktable/verify.h"
#include "bloomcodec/filter_stats.h"
#include "codec/byte_reader.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

using blocktable::Block;
using blocktable::BlockHandle;
using blocktable::DataBlockView;
using blocktable::KeyOrder;
using blocktable::ScanTotals;
using blocktable::VerifyBlock;
using blocktable::VerifyTrailer;

namespace {

// The counters of ScanTotals::kind_counts the property checks need.
enum KindCounter : std::size_t { kDeletions = 0, kMerges = 1, kSizedDeletions = 2 };

// Pebble's kinds (internal/base/internal.go): 0 DEL, 1 SET, 2 MERGE, 7 SINGLEDEL, 18 SETWITHDEL,
// 23 DELSIZED (Pebblev4 on). Every other kind has no place in a data block.
blocktable::KindFlags MakeKinds(bool sized_deletions) {
  blocktable::KindFlags f{};
  f.fill(blocktable::kKindInvalid);
  f[1] = 0;
  f[18] = 0;
  f[0] = 1 << kDeletions;
  f[7] = 1 << kDeletions;
  f[2] = 1 << kMerges;
  if (sized_deletions) f[23] = (1 << kDeletions) | (1 << kSizedDeletions);
  return f;
}

const blocktable::KindFlags& KindsOf(std::uint32_t version) {
  static const blocktable::KindFlags before_v4 = MakeKinds(false);
  static const blocktable::KindFlags from_v4 = MakeKinds(true);
  return version >= kObsoleteBitFormat ? from_v4 : before_v4;
}

// One range's questions to the filter: the stored keys when the filter holds whole keys (Split
// of leveldb.BytewiseComparator), else their prefixes (cockroach_comparator's Split), which the
// scan hands over beside the keys (setup().prefix). With a repair's tap (rebuild_tap.h), the
// whole keys are hashed once for both the old filter's answers and the new filter.
class PebbleRangeFilter final : public blocktable::RangeFilter {
 public:
  PebbleRangeFilter(const PebbleFilter& filter, bool prefixes, TableHashes* tapped)
      : filter_(filter), prefixes_(prefixes), tapped_(prefixes ? nullptr : tapped) {}
  ~PebbleRangeFilter() override {
    if (tapped_ != nullptr && tap_started_) tapped_->Add(std::move(tapped_range_));
  }
  std::size_t Ask(const blocktable::FilterChunk& chunk, std::span<std::uint8_t> answers,
                  Status&) override {
    if (tapped_ != nullptr) {
      if (!tap_started_) tapped_range_.first_block = chunk.block_offset;
      tap_started_ = true;
      tapped_range_.Ask(*filter_.bloom, chunk.keys, answers);
      return chunk.keys.size();
    }
    if (!prefixes_) {
      AskFilter(chunk.keys, answers);
      return chunk.keys.size();
    }
    prefix_answers_.resize(chunk.prefixes.size());
    AskFilter(chunk.prefixes, prefix_answers_);
    std::size_t p = 0;
    for (std::size_t i = 0; i < chunk.keys.size(); ++i) {
      answers[i] = chunk.has_prefix[i] != 0 ? prefix_answers_[p++] : std::uint8_t{1};
    }
    return chunk.keys.size();
  }

 private:
  void AskFilter(const KeyList& keys, std::span<std::uint8_t> answers) const {
    if (filter_.bloom) {
      filter_.bloom->MayContainBatch(keys, answers);
    } else {
      filter_.fuse->MayContainBatch(keys, answers);
    }
  }

  const PebbleFilter& filter_;
  const bool prefixes_;
  std::vector<std::uint8_t> prefix_answers_;  // reused from chunk to chunk
  TableHashes* const tapped_;  // a repair's tap (rebuild_tap.h): a Bloom filter's table only
  bool tap_started_ = false;
  TappedRange tapped_range_;
};

// cockroach_comparator's Split, as the scan's prefix of a filter key.
bool CockroachPrefix(const void*, ByteSpan user_key, ByteSpan& prefix) {
  prefix = user_key.first(colblk::cockroach::Split(user_key));
  return true;
}

Status CountMismatch(const PebbleTable& t, std::string_view name, std::uint64_t want,
                     std::string_view what, std::uint64_t found) {
  return Status::Corrupt(t.source(), t.properties_handle().offset,
                         std::string(name) + " equal to the " + std::to_string(want) + " " +
                             std::string(what),
                         std::to_string(found));
}

// The counts Pebble's writer keeps (FORMAT.md §4): num.entries counts point entries and range
// deletions; deleted.keys the point deletions and (since Pebble counts them) range deletions.
Status CheckCounts(const PebbleTable& t, const ScanTotals& s, std::uint64_t range_deletions) {
  const std::uint64_t all = s.entries + range_deletions;
  if (auto n = t.Number("rocksdb.num.entries"); n && *n != all) {
    return CountMismatch(t, "rocksdb.num.entries", all,
                         "entries of the data blocks and the range deletion block", *n);
  }
  if (auto n = t.Number("rocksdb.num.range-deletions"); n && *n != range_deletions) {
    return CountMismatch(t, "rocksdb.num.range-deletions", range_deletions,
                         "entries of the range deletion block", *n);
  }
  if (auto n = t.Number("rocksdb.merge.operands"); n && *n != s.kind_counts[kMerges]) {
    return CountMismatch(t, "rocksdb.merge.operands", s.kind_counts[kMerges],
                         "MERGE entries of the data blocks", *n);
  }
  if (auto n = t.Number("pebble.num.deletions.sized"); n && *n != s.kind_counts[kSizedDeletions]) {
    return CountMismatch(t, "pebble.num.deletions.sized", s.kind_counts[kSizedDeletions],
                         "DELSIZED entries of the data blocks", *n);
  }
  const std::uint64_t point = s.kind_counts[kDeletions];
  if (auto n = t.Number("rocksdb.deleted.keys");
      n && (*n < point || *n > point + range_deletions)) {
    return Status::Corrupt(t.source(), t.properties_handle().offset,
                           "rocksdb.deleted.keys between the " + std::to_string(point) +
                               " point deletions of the data blocks and " +
                               std::to_string(point + range_deletions) + " (with range deletions)",
                           std::to_string(*n));
  }
  return Status();
}

class PebbleVerify final : public blocktable::VerifyPlugin {
 public:
  explicit PebbleVerify(RebuildTap* tap) : tap_(tap) {}
  std::string_view format_name() const override { return kTableFormatName; }
  bool Open(ByteSpan file, const std::string& path, FileReport& report) override;
  blocktable::VerifySetup setup() const override;
  Status CheckBeforeData() const override;

  blocktable::IndexLayout index_layout() const override { return t_->index_layout(); }
  Result<BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& e) const override {
    return t_->DecodeIndexValue(e);
  }
  Result<Block> ReadIndexPartition(const BlockHandle& h) const override {
    return t_->ReadIndexBlock(h, "index partition");
  }
  Result<Block> ReadDataBlock(const BlockHandle& h) const override;
  Status CheckBlockEnd(const DataBlockView& b, ByteSpan last_key) const override {
    // Columnar separators are user keys (the comparer's Separator or Successor).
    if (t_->columnar()) {
      const ByteSpan user = last_key.first(last_key.size() - 8);
      if (colblk::CompareUserKeys(t_->comparer(), b.index_key, user) < 0) {
        return Status::Corrupt(t_->source(), b.handle.offset,
                               "an index separator at or after the data block's last user key",
                               ToHex(b.index_key) + " < " + ToHex(user));
      }
      return Status();
    }
    if (blocktable::CompareKeys(KeyOrder::kInternal, b.index_key, last_key) < 0) {
      return Status::Corrupt(t_->source(), b.handle.offset,
                             "an index key at or after the data block's last key",
                             ToHex(b.index_key) + " < " + ToHex(last_key));
    }
    return Status();
  }
  Status CheckValue(const DataBlockView& b, std::size_t at, ByteSpan key,
                    ByteSpan value) const override;
  std::unique_ptr<blocktable::RangeFilter> NewRangeFilter() const override {
    if (t_->filter().kind == PebbleFilterKind::kNone) return nullptr;
    return std::make_unique<PebbleRangeFilter>(t_->filter(), AsksPrefixes(), tapped_.get());
  }
  Status CheckAfterData(const ScanTotals& totals) const override {
    // Keys of MinLZ blocks were not counted: the counts cannot be compared.
    if (unread_blocks_.load() > 0) return Status();
    std::uint64_t range_deletions = 0;
    BLOOMCODEC_RETURN_IF_ERROR(t_->ForEachRangeDeletion([&](ByteSpan, ByteSpan) {
      ++range_deletions;
      return Status();
    }));
    return CheckCounts(*t_, totals, range_deletions);
  }
  bool ReportStoredKeys(const ScanTotals& totals, FileReport& report) const override;
  std::string_view filter_description() const override { return "the filter"; }
  Status MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override {
    t_->MayContainBatch(keys, answers);
    return Status();
  }
  void ReportFill(const ScanTotals& totals, FileReport& report) const override;

 private:
  // A columnar table whose filter holds Split prefixes shorter than the keys.
  bool AsksPrefixes() const {
    return t_->columnar() && t_->comparer() == colblk::KeyComparer::kCockroach;
  }
  // What the filter holds, one entry per distinct key or prefix.
  std::uint64_t FilterKeys(const ScanTotals& totals) const {
    return AsksPrefixes() ? totals.filter_entries : totals.distinct_keys();
  }

  std::optional<PebbleTable> t_;
  RebuildTap* tap_ = nullptr;
  std::unique_ptr<TableHashes> tapped_;  // the tap's table, when it builds this one's filter
  // Data blocks compressed with MinLZ proper, whose keys go unchecked, and the first's offset.
  mutable std::atomic<std::uint64_t> unread_blocks_{0};
  mutable std::atomic<std::uint64_t> first_unread_{std::numeric_limits<std::uint64_t>::max()};
};

// A data block we cannot decompress (MinLZ) is read as a block without keys and reported once,
// as unsupported, after the scan: its keys go unchecked, the others are still asked.
Result<Block> PebbleVerify::ReadDataBlock(const BlockHandle& h) const {
  Result<Block> b = t_->ReadDataBlock(h);
  if (b.ok() || b.status().code() != StatusCode::kUnsupported) return b;
  unread_blocks_.fetch_add(1);
  std::uint64_t first = first_unread_.load();
  while (h.offset < first && !first_unread_.compare_exchange_weak(first, h.offset)) {
  }
  blocktable::BlockBuilder empty(16);
  const ByteSpan bytes = empty.Finish();
  return Block::Parse(
      blocktable::BlockContents::Owned(ByteVector(bytes.begin(), bytes.end()), h.offset),
      t_->source(), "data block", blocktable::BlockFooterLayout::kPebble);
}

bool PebbleVerify::Open(ByteSpan file, const std::string& path, FileReport& report) {
  if (file.size() >= 48) {
    const std::uint8_t* v = file.data() + file.size() - 12;
    const std::uint32_t version = v[0] | v[1] << 8 | v[2] << 16 | std::uint32_t{v[3]} << 24;
    if (version >= 1 && version <= kLastKnownFormat) report.version = PebbleFormatName(version);
  }
  Result<PebbleTable> opened = PebbleTable::Open(file, path);
  if (!opened.ok()) {
    const bool unsupported = opened.status().code() == StatusCode::kUnsupported;
    report.findings.push_back(FindingFromStatus(
        unsupported ? Severity::kWarning : Severity::kError,
        unsupported ? finding_kind::kUnsupported : finding_kind::kStructure, opened.status()));
    return false;
  }
  t_.emplace(std::move(opened).value());
  tapped_ = TapTable(tap_, *t_);
  // Columnar tables: cockroach_comparator's Split and order are known too (crdb1's tables).
  if (t_->columnar() && t_->comparer() == colblk::KeyComparer::kCockroach) return true;
  if (t_->comparer() != colblk::KeyComparer::kBytewise) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "comparer " + rocksdb::PrintableName(t_->comparer_name()) +
                   ": the key order and Split of row-based tables are read for "
                   "leveldb.BytewiseComparator only; the table's keys go unchecked",
               t_->properties_handle().offset);
    return false;
  }
  return true;
}

blocktable::VerifySetup PebbleVerify::setup() const {
  blocktable::VerifySetup s;
  s.key_order = KeyOrder::kInternal;
  s.keys.trailer_bytes = 8;
  // Columnar blocks keep the obsolete mark in a bitmap, not in the kind byte.
  s.keys.kind_mask = t_->version() >= kObsoleteBitFormat && !t_->columnar()
                         ? static_cast<std::uint8_t>(~kObsoleteBit)
                         : 0xff;
  s.keys.kind_flags = &KindsOf(t_->version());
  // Pebble's filter writer drops a hash equal to the one before: each run of equal keys once.
  s.asked = blocktable::StoredKeys::kDistinct;
  s.filter_holds_whole_keys = true;  // Split of leveldb.BytewiseComparator: the whole key
  if (AsksPrefixes()) {
    // cockroach_comparator: the filter holds the MVCC prefixes; the keys are ordered by
    // cockroach's Compare, which colblk::VerifyDataBlock checked.
    s.key_order = KeyOrder::kUnknownInternal;
    s.filter_holds_whole_keys = false;
    s.prefix.of = &CockroachPrefix;
  }
  // Columnar values carry no prefix byte (colblk::VerifyDataBlock checks external ones).
  s.check_values = t_->version() >= kValuePrefixFormat && !t_->columnar();
  s.damage_ends_report = true;
  s.given_keys_own_finding = false;
  return s;
}

// The trailers of every meta block, the metaindex's, index's and properties' entries, the index
// partitions and the range deletion block (the metaindex, index and filter were read, checksums
// included, by PebbleTable::Open).
Status PebbleVerify::CheckBeforeData() const {
  const PebbleTable& t = *t_;
  const blocktable::TrailerFormat trailer = t.BlockOptions().trailer;
  for (const auto& e : t.metaindex()) {
    BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(t.file(), *e.handle, t.source(), trailer,
                                             "meta block " + rocksdb::PrintableName(e.key)));
  }
  if (t.version() < kFooterChecksumFormat) {
    BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(t.metaindex_block(), KeyOrder::kBytewise).status());
  }
  const KeyOrder index_order = t.index_layout().order;
  BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(t.index_block(), index_order).status());
  BLOOMCODEC_RETURN_IF_ERROR(t.ForEachIndexPartition([&](ByteSpan, const BlockHandle& h) {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, t.ReadIndexBlock(h, "index partition"));
    return VerifyBlock(b, index_order).status();
  }));
  if (t.columnar()) return t.VerifyColumnarMetaBlocks();
  for (const auto& e : t.metaindex()) {
    if (e.key != kRangeDelBlockName) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, t.ReadBlock(*e.handle, "range deletion block"));
    BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(b, KeyOrder::kInternal).status());
  }
  return Status();
}

// Pebblev3+: a SET's value starts with the value prefix byte (FORMAT.md §5.3): bits 7..6 00 the
// value in place, 10 a value-block handle (uvarint length, block number, offset in the block).
Status PebbleVerify::CheckValue(const DataBlockView& b, std::size_t at, ByteSpan key,
                                ByteSpan value) const {
  if (key.size() < 8 || (key[key.size() - 8] & static_cast<std::uint8_t>(~kObsoleteBit)) != 1) {
    return Status();
  }
  if (value.empty()) {
    return b.block.ErrorAt(at, "a value prefix byte before a SET's value (Pebblev3 on)",
                           "an empty value");
  }
  const std::uint8_t kind = value[0] >> 6;
  if (kind == 0) return Status();
  if (kind != 2) {
    return b.block.ErrorAt(at,
                           "a value prefix saying in place (00) or value-block handle (10) in "
                           "bits 7..6",
                           "prefix byte " + std::to_string(value[0]));
  }
  ByteReader r(value.subspan(1), t_->source(), b.handle.offset);
  for (const char* what : {"value length", "value block number", "offset in the value block"}) {
    if (!r.ReadVarint64(what).ok()) {
      return b.block.ErrorAt(at, "a value-block handle of three uvarints after the prefix byte");
    }
  }
  for (const auto& e : t_->metaindex()) {
    if (e.key == kValueIndexBlockName) return Status();
  }
  return b.block.ErrorAt(at, "a pebble.value_index in the metaindex for a value-block handle",
                         "none");
}

bool PebbleVerify::ReportStoredKeys(const ScanTotals& totals, FileReport& report) const {
  const PebbleTable& t = *t_;
  if (const std::uint64_t unread = unread_blocks_.load(); unread > 0) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               std::to_string(unread) +
                   " data block(s) compressed with MinLZ (compression type 8), the first at "
                   "offset " +
                   std::to_string(first_unread_.load()) +
                   ": bloomcodec has no MinLZ decoder; their keys go unchecked",
               first_unread_.load());
  }
  if (t.filter().kind != PebbleFilterKind::kNone) {
    report.keys_checked = FilterKeys(totals);
    return true;
  }
  bool other = false;
  for (const auto& e : t.metaindex()) {
    if (!e.key.starts_with("fullfilter.")) continue;
    other = true;
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "metaindex entry " + rocksdb::PrintableName(e.key) +
                   ": a filter family Pebble does not read (neither rocksdb.BuiltinBloomFilter "
                   "nor binaryfuse); every lookup reads a data block",
               e.value_at);
  }
  if (!other) {
    report.Add(Severity::kWarning, finding_kind::kNoFilter,
               "no filter: every lookup reads a data block");
  }
  report.keys_checked = totals.entries;
  FillReport always;
  always.fp_rate = 1.0;
  report.fill = always;
  return false;
}

void PebbleVerify::ReportFill(const ScanTotals& totals, FileReport& report) const {
  const PebbleFilter& f = t_->filter();
  FillReport fill;
  // With MinLZ blocks unread the keys the filter was built for are not all known.
  if (unread_blocks_.load() == 0) {
    fill.sized_keys = static_cast<double>(FilterKeys(totals));
    fill.sized_keys_from = "table";
  }
  if (f.fuse) {
    // A binary fuse filter's fingerprints are about half ones whatever it holds.
    fill.bits = f.fuse->bit_count();
    fill.bits_set = f.fuse->bits_set();
    fill.hash_count = 3;
    fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
    fill.estimated_keys = std::numeric_limits<double>::quiet_NaN();
    fill.fp_rate =
        f.fuse->empty() ? 0 : std::ldexp(1.0, -static_cast<int>(f.fuse->fingerprint_bits()));
    report.fill = fill;
    return;
  }
  const BloomReader& bloom = *f.bloom;
  const FillStatistics s =
      ComputeFillStatistics(bloom.bit_count(), bloom.bits_set(), bloom.num_probes());
  fill.bits = s.bits;
  fill.bits_set = s.bits_set;
  fill.hash_count = s.hash_count;
  fill.fill_ratio = s.fill_ratio;
  fill.estimated_keys = s.estimated_keys;
  // A filter of 5 bytes or fewer answers "absent" for every key.
  fill.fp_rate = bloom.empty() ? 0 : s.false_positive_rate;
  if (s.bits > 0 && unread_blocks_.load() == 0) {
    const FillVerdict verdict =
        JudgeFill(s, static_cast<double>(FilterKeys(totals)), "in its data blocks");
    if (verdict) {
      report.Add(verdict.severity, verdict.kind,
                 verdict.kind == finding_kind::kOverfilled
                     ? verdict.reason + ": the filter was damaged or built for other keys"
                     : verdict.reason,
                 f.handle.offset);
    }
  }
  report.fill = fill;
  // Scanned whole, every block read: the tap's hashes are every key's (rebuild_tap.h).
  if (tapped_ && unread_blocks_.load() == 0 && !totals.damage && !totals.stopped &&
      !totals.filter_error) {
    tapped_->Keep(*t_, totals.entries);
  }
}

}  // namespace

FileReport VerifyPebbleTable(const std::string& path, const KeyStream* probes,
                             const std::string& group, RebuildTap* tap) {
  PebbleVerify plugin(tap);
  return blocktable::VerifyBlockTable(path, plugin, probes, group);
}

}  // namespace bloomcodec::pebble
