// RocksDB SSTs in the block-table verify pipeline (blocktable/verify.h): what is RocksDB's own is
// here (the meta blocks and their checksums, index partitions, the counts the properties claim,
// full / partitioned / block-based filters and prefix extractors, the filter's fill); the scan
// and the report are the pipeline's.
#include "rocksdb/sst/verify.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "blocktable/block_handle.h"
#include "blocktable/stream.h"
#include "blocktable/verify.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "rocksdb/speedb_paired_bloom.h"
#include "rocksdb/sst/near_keys.h"
#include "rocksdb/sst/rebuild_tap.h"
#include "rocksdb/sst/sst_reader.h"
#include "sst_fill.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::CompareKeys;
using blocktable::DataBlockView;
using blocktable::KeyOrder;
using blocktable::ScanTotals;
using blocktable::TrailerFormat;
using blocktable::VerifyBlock;
using blocktable::VerifyTrailer;

namespace {

// The counters of ScanTotals::kind_counts RocksDB's property checks need.
enum KindCounter : std::size_t { kPlainDeletions = 0, kPointDeletions = 1, kMerges = 2 };

// The value type is the tag's low byte (db/dbformat.h): kTypeDeletion 0x0, kTypeMerge 0x2,
// kTypeSingleDeletion 0x7, kTypeDeletionWithTimestamp 0x14.
const blocktable::KindFlags& CountedKinds() {
  static const blocktable::KindFlags flags = [] {
    blocktable::KindFlags f{};
    f[0x0] = (1 << kPlainDeletions) | (1 << kPointDeletions);
    f[0x7] = 1 << kPointDeletions;
    f[0x14] = 1 << kPointDeletions;
    f[0x2] = 1 << kMerges;
    return f;
  }();
  return flags;
}

// The counts RocksDB's table builder keeps as it adds entries (BlockBasedTableBuilder::Add):
// num.entries counts every entry, range deletions included (they go to their own block);
// num.range-deletions those; merge.operands the merges; deleted.keys the point deletions, to
// which releases since 6.x add the range deletions (5.x counted them in a collector that saw
// kTypeDeletion only), so it must lie between the two readings.
Status CheckCounts(const SstReader& sst, const ScanTotals& t, std::uint64_t range_deletions) {
  const TableProperties& props = *sst.properties();
  const std::uint64_t at = sst.properties_handle()->offset;
  const std::string& src = sst.source();
  const std::uint64_t entries = t.entries;
  const std::uint64_t all = entries + range_deletions;
  if (auto n = props.Number("rocksdb.num.entries"); n && *n != all) {
    return Status::Corrupt(src, at,
                           "rocksdb.num.entries equal to the " + std::to_string(entries) +
                               " entries of the data blocks + " + std::to_string(range_deletions) +
                               " range deletions (" + std::to_string(all) + ")",
                           std::to_string(*n));
  }
  if (auto n = props.Number("rocksdb.num.range-deletions"); n && *n != range_deletions) {
    return Status::Corrupt(src, at,
                           "rocksdb.num.range-deletions equal to the " +
                               std::to_string(range_deletions) +
                               " entries of the range deletion block",
                           std::to_string(*n));
  }
  const std::uint64_t merges = t.kind_counts[kMerges];
  if (auto n = props.Number("rocksdb.merge.operands"); n && *n != merges) {
    return Status::Corrupt(src, at,
                           "rocksdb.merge.operands equal to the " + std::to_string(merges) +
                               " merge entries of the data blocks",
                           std::to_string(*n));
  }
  const std::uint64_t plain = t.kind_counts[kPlainDeletions];
  const std::uint64_t most = t.kind_counts[kPointDeletions] + range_deletions;
  if (auto n = props.Number("rocksdb.deleted.keys"); n && (*n < plain || *n > most)) {
    return Status::Corrupt(src, at,
                           "rocksdb.deleted.keys between the " + std::to_string(plain) +
                               " deletions of the data blocks and " + std::to_string(most) +
                               " (all point deletions + range deletions)",
                           std::to_string(*n));
  }
  return Status();
}

// How the stored keys are asked of the filter.
enum class Probe {
  kNone,         // not asked (no filter, or one point lookups do not consult)
  kFull,         // the full filter, in batches
  kPartitioned,  // in batches per filter partition
  kPerKey,       // block-based filters, or a full filter that does not parse: the read path
};

// One range's questions to the filter: the user keys (each once) and their prefixes.
class SstRangeFilter final : public blocktable::RangeFilter {
 public:
  SstRangeFilter(const SstReader& sst, Probe probe, const FullFilterReader* full,
                 std::size_t chunk_keys, TableHashes* tapped)
      : sst_(sst), probe_(probe), full_(full), whole_(sst.whole_key_filtering()), tapped_(tapped) {
    const std::size_t n = std::min<std::size_t>(chunk_keys, 1 << 16);
    whole_answers_.reserve(n);
    prefix_answers_.reserve(n);
    if (probe == Probe::kPartitioned) {
      sub_keys_.Reserve(n, n * 32);
      sub_prefixes_.Reserve(n, n * 16);
      sub_answers_.reserve(n);
    }
  }

  // The range is done: its keys' hashes go to the tap's table.
  ~SstRangeFilter() override {
    if (tapped_ != nullptr && tap_started_) tapped_->Add(tap_first_block_, std::move(tap_hashes_));
  }

  std::size_t Ask(const blocktable::FilterChunk& chunk, std::span<std::uint8_t> answers,
                  Status& error) override;

 private:
  // Whether key i has a prefix, and whether it asks the filter at all (without whole-key
  // filtering only its prefix does).
  bool HasPrefix(std::size_t i) const {
    return !chunk_->has_prefix.empty() && chunk_->has_prefix[i] != 0;
  }
  bool Asks(std::size_t i) const { return whole_ || HasPrefix(i); }
  std::size_t ProbeEachKey();
  std::size_t ProbePartitions();
  // Probes keys [begin, ...) of one partition's batch; returns the key after it.
  std::size_t ProbePartition(std::size_t begin, std::size_t& p, const BlockHandle& partition);
  Status LoadPartition(const BlockHandle& h);
  std::size_t Fail(std::size_t i, Status s) {
    error_ = std::move(s);
    return i;
  }

  const SstReader& sst_;
  const Probe probe_;
  const FullFilterReader* full_;  // kFull
  const bool whole_;
  const blocktable::FilterChunk* chunk_ = nullptr;  // the chunk being asked
  Status error_;
  std::vector<std::uint8_t> whole_answers_;
  std::vector<std::uint8_t> prefix_answers_;
  // kPartitioned: the partition asked last, and the keys of one partition's batch.
  BlockHandle partition_handle_;
  blocktable::BlockContents partition_contents_;
  std::optional<FullFilterReader> partition_;
  KeyList sub_keys_;
  KeyList sub_prefixes_;
  std::vector<std::uint8_t> sub_answers_;
  // A repair's tap (rebuild_tap.h): the range's keys hashed for the new filter.
  TableHashes* const tapped_;
  bool tap_started_ = false;
  std::uint64_t tap_first_block_ = 0;
  std::vector<std::uint64_t> tap_hashes_;
};

std::size_t SstRangeFilter::Ask(const blocktable::FilterChunk& chunk,
                                std::span<std::uint8_t> answers, Status& error) {
  const std::size_t n = chunk.keys.size();
  if (probe_ == Probe::kFull) {
    if (tapped_ != nullptr) {
      if (!tap_started_) tap_first_block_ = chunk.block_offset;
      tap_started_ = true;
      AppendCollapsedHashes(tapped_->encoding(), chunk.keys, tap_hashes_);
    }
    // The common case, answered in place: the whole keys, then their prefixes.
    if (whole_) {
      full_->MayContainBatch(chunk.keys, answers);
    } else {
      std::fill(answers.begin(), answers.end(), std::uint8_t{1});
    }
    if (chunk.prefixes.empty()) return n;
    prefix_answers_.assign(chunk.prefixes.size(), 1);
    full_->MayContainBatch(chunk.prefixes, prefix_answers_);
    std::size_t p = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!chunk.has_prefix.empty() && chunk.has_prefix[i] != 0 && prefix_answers_[p++] == 0) {
        answers[i] = 0;
      }
    }
    return n;
  }
  chunk_ = &chunk;
  whole_answers_.assign(n, 1);
  prefix_answers_.assign(chunk.prefixes.size(), 1);
  const std::size_t asked = probe_ == Probe::kPartitioned ? ProbePartitions() : ProbeEachKey();
  std::size_t p = 0;
  for (std::size_t i = 0; i < asked; ++i) {
    bool maybe = whole_answers_[i] != 0;
    if (HasPrefix(i) && prefix_answers_[p++] == 0) maybe = false;
    answers[i] = maybe ? 1 : 0;
  }
  if (asked < n) error = std::move(error_);
  return asked;
}

// As SstReader::MayContain and FilterHolds per key: the read path (slow; rare filters).
std::size_t SstRangeFilter::ProbeEachKey() {
  const KeyList& keys = chunk_->keys;
  std::size_t p = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Result<bool> maybe = sst_.MayContain(keys[i]);
    if (!maybe.ok()) return Fail(i, maybe.status());
    bool answer = *maybe;
    if (HasPrefix(i)) {
      if (answer) {
        Result<bool> holds = sst_.FilterHolds(chunk_->prefixes[p], keys[i]);
        if (!holds.ok()) return Fail(i, holds.status());
        answer = *holds;
      }
      ++p;
    }
    whole_answers_[i] = answer ? 1 : 0;
  }
  return keys.size();
}

// Consecutive keys of the same partition probed as one batch of that partition's filter.
std::size_t SstRangeFilter::ProbePartitions() {
  const KeyList& keys = chunk_->keys;
  std::size_t p = 0;  // prefixes before key i
  std::size_t i = 0;
  while (i < keys.size()) {
    if (!Asks(i)) {
      ++i;
      continue;
    }
    Result<BlockHandle> partition = sst_.FilterBlockFor(keys[i]);
    if (!partition.ok()) return Fail(i, partition.status());
    if (Status s = LoadPartition(*partition); !s.ok()) return Fail(i, s);
    i = ProbePartition(i, p, *partition);
    if (!error_.ok()) return i;
  }
  return keys.size();
}

std::size_t SstRangeFilter::ProbePartition(std::size_t begin, std::size_t& p,
                                           const BlockHandle& partition) {
  const KeyList& keys = chunk_->keys;
  sub_keys_.Clear();
  sub_prefixes_.Clear();
  const std::size_t prefix_begin = p;
  // The keys up to the first that asks another partition (or cannot be placed).
  std::optional<std::pair<std::size_t, Status>> stop;
  std::size_t i = begin;
  for (; i < keys.size(); ++i) {
    if (i > begin && Asks(i)) {
      Result<BlockHandle> h = sst_.FilterBlockFor(keys[i]);
      if (!h.ok()) {
        stop.emplace(i, h.status());
        break;
      }
      if (h->offset != partition.offset || h->size != partition.size) break;
    }
    if (whole_) sub_keys_.Add(keys[i]);
    if (HasPrefix(i)) sub_prefixes_.Add(chunk_->prefixes[p++]);
  }
  if (whole_) {
    sub_answers_.resize(sub_keys_.size());
    partition_->MayContainBatch(sub_keys_, sub_answers_);
    std::copy(sub_answers_.begin(), sub_answers_.end(), whole_answers_.begin() + begin);
  }
  if (!sub_prefixes_.empty()) {
    sub_answers_.resize(sub_prefixes_.size());
    partition_->MayContainBatch(sub_prefixes_, sub_answers_);
    std::copy(sub_answers_.begin(), sub_answers_.end(), prefix_answers_.begin() + prefix_begin);
  }
  if (stop) return Fail(stop->first, stop->second);
  return i;
}

Status SstRangeFilter::LoadPartition(const BlockHandle& h) {
  if (partition_ && h.offset == partition_handle_.offset && h.size == partition_handle_.size) {
    return Status();
  }
  partition_.reset();
  BLOOMCODEC_ASSIGN_OR_RETURN(partition_contents_,
                              blocktable::ReadBlock(sst_.file(), h, sst_.source(),
                                                    sst_.BlockOptions(), "filter partition"));
  BLOOMCODEC_ASSIGN_OR_RETURN(
      FullFilterReader f,
      FullFilterReader::Parse(partition_contents_.bytes(), sst_.source(), sst_.filter()->family));
  partition_.emplace(std::move(f));
  partition_handle_ = h;
  return Status();
}

// The prefix of a key in the extractor's domain (blocktable::KeyPrefix).
bool PrefixOf(const void* extractor, ByteSpan user_key, ByteSpan& prefix) {
  const PrefixExtractor& p = *static_cast<const PrefixExtractor*>(extractor);
  if (!p.InDomain(user_key)) return false;
  prefix = p.Transform(user_key);
  return true;
}

// Every check that stops at the first problem (checksums and structure of every block, index
// keys bracketing their blocks, the counts the properties claim), and every user key of the
// data blocks (and its prefix) asked of the filter, as RocksDB's builder added them.
class SstVerify final : public blocktable::VerifyPlugin {
 public:
  SstVerify(const std::optional<PrefixExtractor>& prefix_override, RebuildTap* tap)
      : prefix_(prefix_override), tap_(tap) {}

  std::string_view format_name() const override { return "rocksdb-sst"; }
  bool Open(ByteSpan file, const std::string& path, FileReport& report) override;
  blocktable::VerifySetup setup() const override;
  Status CheckBeforeData() const override;

  blocktable::IndexLayout index_layout() const override { return sst_->index_layout(); }
  Result<BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& entry) const override {
    return sst_->DecodeIndexValue(entry);
  }
  Result<Block> ReadIndexPartition(const BlockHandle& partition) const override {
    return sst_->ReadBlock(partition, "index partition");
  }

  Result<Block> ReadDataBlock(const BlockHandle& h) const override {
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_->file(), h, sst_->source(), sst_->BlockOptions().trailer, "data block"));
    return sst_->ReadDataBlock(h);
  }

  // The index key must be at or after the block's last key (compared as a user key when the
  // index holds user keys).
  Status CheckBlockEnd(const DataBlockView& b, ByteSpan last_key) const override {
    if (!blocktable::IsKnownOrder(sst_->index_key_order())) return Status();
    const ByteSpan compared = sst_->index_key_is_user_key() ? UserKeyOf(last_key) : last_key;
    if (CompareKeys(sst_->index_key_order(), b.index_key, compared) < 0) {
      return Status::Corrupt(sst_->source(), b.handle.offset,
                             "an index key at or after the data block's last key",
                             ToHex(b.index_key) + " < " + ToHex(compared));
    }
    return Status();
  }

  std::unique_ptr<blocktable::RangeFilter> NewRangeFilter() const override {
    if (probe_ == Probe::kNone) return nullptr;
    return std::make_unique<SstRangeFilter>(*sst_, probe_, full_ ? &*full_ : nullptr,
                                            blocktable::CurrentStreamLimits().chunk_keys,
                                            tapped_.get());
  }

  Status CheckAfterData(const ScanTotals& totals) const override {
    std::uint64_t range_deletions = 0;
    BLOOMCODEC_RETURN_IF_ERROR(sst_->ForEachRangeDeletion([&](ByteSpan, ByteSpan) {
      ++range_deletions;
      return Status();
    }));
    if (!sst_->properties()) return Status();
    return CheckCounts(*sst_, totals, range_deletions);
  }

  bool ReportStoredKeys(const ScanTotals& totals, FileReport& report) const override;
  std::string_view filter_description() const override { return "the filter"; }
  Status MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override {
    return sst_->MayContainBatch(keys, answers);
  }
  // What RocksDB's builder added to the filter (FilterEntriesAdded); our count of the scan:
  // each prefix once per run of equal prefixes, and the whole keys with whole-key filtering.
  void ReportFill(const ScanTotals& totals, FileReport& report) const override {
    const std::uint64_t counted = prefix_ ? totals.filter_entries : totals.distinct_keys();
    ReportSstFill(*sst_, EntriesAddedToFilter(*sst_, prefix_.has_value(), counted, totals.entries),
                  report);
    if (probe_ == Probe::kFull && sst_->whole_key_filtering() &&
        sst_->user_key_order() != UserKeyOrder::kUnknown) {
      ReportNearKeys(*sst_, *full_, report);
    }
    // Scanned whole and asked whole: the tap's hashes are every key's (rebuild_tap.h).
    if (tapped_ && !totals.damage && !totals.stopped && !totals.filter_error) {
      KeepRebuiltFilter(*tap_, *sst_, *tapped_, totals.entries, totals.filter_entries);
    }
  }

 private:
  Status CheckIndexBlock(const BlockHandle& h, std::string_view what) const;
  Status CheckFilterBlocks() const;

  std::optional<PrefixExtractor> prefix_;
  std::optional<SstReader> sst_;
  std::string extractor_name_;  // the properties' rocksdb.prefix.extractor.name
  Probe probe_ = Probe::kNone;
  std::optional<FullFilterReader> full_;
  bool unsought_ = false;  // a filter found by key under a comparator we do not know
  RebuildTap* tap_ = nullptr;
  std::unique_ptr<TableHashes> tapped_;  // the tap's table, when it builds this one's filter
};

bool SstVerify::Open(ByteSpan file, const std::string& path, FileReport& report) {
  SstOpenOptions open;
  open.verify_checksums = true;
  Result<SstReader> opened = SstReader::Open(file, path, open);
  if (!opened.ok()) {
    // A table type or format_version we do not read is not damage: a warning (docs/cli.md,
    // "Evidence standard"); damage is an error.
    const bool unsupported = opened.status().code() == StatusCode::kUnsupported;
    report.findings.push_back(FindingFromStatus(
        unsupported ? Severity::kWarning : Severity::kError,
        unsupported ? finding_kind::kUnsupported : finding_kind::kStructure, opened.status()));
    return false;
  }
  sst_.emplace(std::move(opened).value());
  const SstReader& sst = *sst_;
  if (sst.properties()) {
    // The policy name comes from the file (JSON needs UTF-8).
    report.version = PrintableName(sst.properties()->String("rocksdb.filter.policy").value_or(""));
    extractor_name_ = sst.properties()->String("rocksdb.prefix.extractor.name").value_or("");
  }
  // The prefix extractor: the command line's, else a built-in one the properties name.
  if (!prefix_) prefix_ = PrefixExtractor::FromPropertyName(extractor_name_);
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kBlockBased) prefix_.reset();
  if (sst.user_key_order() == UserKeyOrder::kUnknown) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "comparator " + PrintableName(sst.comparator_name()) +
                   ": not one we know (known: leveldb.BytewiseComparator, "
                   "rocksdb.ReverseBytewiseComparator, MyRocks's RocksDB_SE_v3.10 and "
                   "rev:RocksDB_SE_v3.10): key order is not judged");
    // Partitions and block-based filters are found through the index by key: that needs the
    // comparator's order.
    unsought_ = sst.filter() && sst.filter()->placement != FilterPlacement::kFull;
  }
  // Whether the stored keys are asked of the filter, and how.
  if (sst.filter() && (sst.whole_key_filtering() || prefix_) && !unsought_) {
    switch (sst.filter()->placement) {
      case FilterPlacement::kFull:
        if (auto f =
                FullFilterReader::Parse(sst.filter()->contents.bytes(), path, sst.filter()->family);
            f.ok()) {
          full_.emplace(std::move(f).value());
          probe_ = Probe::kFull;
        } else {
          probe_ = Probe::kPerKey;  // the read path reports it at the first key that asks
        }
        break;
      case FilterPlacement::kPartitioned: probe_ = Probe::kPartitioned; break;
      case FilterPlacement::kBlockBased: probe_ = Probe::kPerKey; break;
    }
  }
  if (probe_ == Probe::kFull) tapped_ = TapTable(tap_, sst, prefix_.has_value());
  return true;
}

blocktable::VerifySetup SstVerify::setup() const {
  blocktable::VerifySetup s;
  s.key_order = sst_->data_key_order();
  s.keys.trailer_bytes = 8;
  s.keys.kind_flags = &CountedKinds();
  s.asked = blocktable::StoredKeys::kDistinct;
  s.filter_holds_whole_keys = sst_->whole_key_filtering();
  if (prefix_) s.prefix = {PrefixOf, &*prefix_};
  s.filter_groups = 1;
  s.damage_ends_report = true;  // nothing of the filter pass is reported for a damaged table
  s.given_keys_own_finding = false;
  return s;
}

// Every check made before the data blocks: the trailers of the metaindex, the index and every
// meta block, the index's partitions, the filter's partitions or block-based layout.
Status SstVerify::CheckBeforeData() const {
  const SstReader& sst = *sst_;
  const TrailerFormat trailer = sst.BlockOptions().trailer;
  const std::string& src = sst.source();
  BLOOMCODEC_RETURN_IF_ERROR(
      VerifyTrailer(sst.file(), sst.footer().metaindex_handle, src, trailer, "metaindex block"));
  BLOOMCODEC_RETURN_IF_ERROR(
      VerifyTrailer(sst.file(), sst.index_handle(), src, trailer, "index block"));
  BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(sst.metaindex_block(), KeyOrder::kBytewise).status());
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    if (!e.handle) continue;
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst.file(), *e.handle, src, trailer, "meta block " + PrintableName(e.key)));
  }
  BLOOMCODEC_RETURN_IF_ERROR(
      VerifyBlock(sst.index_block(), sst.index_key_order(), sst.index_value_encoding()).status());
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachIndexPartition(
      [&](ByteSpan, const BlockHandle& h) { return CheckIndexBlock(h, "index partition"); }));
  return CheckFilterBlocks();
}

Status SstVerify::CheckIndexBlock(const BlockHandle& h, std::string_view what) const {
  BLOOMCODEC_RETURN_IF_ERROR(
      VerifyTrailer(sst_->file(), h, sst_->source(), sst_->BlockOptions().trailer, what));
  BLOOMCODEC_ASSIGN_OR_RETURN(Block b, sst_->ReadBlock(h, what));
  return VerifyBlock(b, sst_->index_key_order(), sst_->index_value_encoding()).status();
}

Status SstVerify::CheckFilterBlocks() const {
  const SstReader& sst = *sst_;
  const std::string& src = sst.source();
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kPartitioned) {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block index,
                                Block::Parse(sst.filter()->contents, src, "filter partition index",
                                             BlockFooterLayout::kRocksDb));
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyBlock(index, sst.index_key_order(), sst.index_value_encoding()).status());
    const TrailerFormat trailer = sst.BlockOptions().trailer;
    BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachIndexEntry(index, [&](ByteSpan, const BlockHandle& h) {
      return VerifyTrailer(sst.file(), h, src, trailer, "filter partition");
    }));
  }
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kFull &&
      sst.filter()->family == FilterPolicyFamily::kSpeedbPaired) {
    // What Speedb's writer always makes (whole batches, mutual pairs): its reader would read
    // outside the filter, or probe blocks no key's bits were set in.
    const ByteSpan bytes = sst.filter()->contents.bytes();
    BLOOMCODEC_RETURN_IF_ERROR(
        speedb::CheckLayout(bytes, speedb::ReadTrailer(bytes), src, sst.filter()->handle.offset));
  }
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kBlockBased) {
    // The layout RocksDB's BlockBasedFilterBlockBuilder writes (LevelDB's).
    BLOOMCODEC_RETURN_IF_ERROR(leveldb::ParseFilterBlockLayout(sst.filter()->contents.bytes(), src,
                                                               sst.filter()->handle.offset)
                                   .status());
  }
  return Status();
}

bool SstVerify::ReportStoredKeys(const ScanTotals& totals, FileReport& report) const {
  const SstReader& sst = *sst_;
  if (!sst.filter()) {
    bool other = false;
    for (const SstMetaindexEntry& e : sst.metaindex()) {
      if (e.key.starts_with("fullfilter.") || e.key.starts_with("partitionedfilter.") ||
          e.key.starts_with("filter.")) {
        other = true;
        report.Add(Severity::kWarning, finding_kind::kUnsupported,
                   "metaindex entry " + PrintableName(e.key) +
                       ": not a filter of RocksDB's built-in policies (another policy); every "
                       "lookup reads a data block");
      }
    }
    if (!other) {
      report.Add(Severity::kWarning, finding_kind::kNoFilter,
                 "no filter: every lookup reads a data block");
    }
  } else if (!sst.whole_key_filtering() && !prefix_) {
    const bool custom = !extractor_name_.empty() && extractor_name_ != "nullptr";
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "whole_key_filtering is off: the filter holds prefixes, and without the prefix "
               "extractor (" +
                   (custom ? "the custom " + PrintableName(extractor_name_) +
                                 ", not one we apply; --prefix-extractor fixed:N|capped:N|noop "
                                 "names one"
                           : std::string("none recorded")) +
                   ") point lookups do not consult it");
  } else if (unsought_) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "the filter's partitions (or blocks) are found through the index by key, which "
               "needs the comparator's order: the stored keys were not asked of it");
    return false;
  } else if (totals.filter_error) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, *totals.filter_error));
    return false;
  } else {
    report.keys_checked = totals.distinct_keys();
    return true;
  }
  // The stored keys were not asked: every probe is answered "may contain", and a read pays
  // fp rate 1 (as for a LevelDB table without a filter).
  report.keys_checked = totals.entries;
  FillReport always;
  always.fp_rate = 1.0;
  report.fill = always;
  return false;
}

}  // namespace

FileReport VerifySst(const std::string& path, const KeyStream* probes, const std::string& group,
                     const std::optional<PrefixExtractor>& prefix_override, RebuildTap* tap) {
  SstVerify plugin(prefix_override, tap);
  return blocktable::VerifyBlockTable(path, plugin, probes, group);
}

}  // namespace bloomcodec::rocksdb
