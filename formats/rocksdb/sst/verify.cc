#include "rocksdb/sst/verify.h"

#include <algorithm>
#include <limits>

#include "blocktable/block_handle.h"
#include "blocktable/stream.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "codec/parallel.h"
#include "codec/short_bytes.h"
#include "rocksdb/sst/sst_reader.h"
#include "sst_filter_stats.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::BlockRange;
using blocktable::CheckedBlockWalk;
using blocktable::CompareKeys;
using blocktable::KeyOrder;
using blocktable::StreamLimits;
using blocktable::TrailerFormat;
using blocktable::VerifyBlock;
using blocktable::VerifyTrailer;

namespace {

// What the data blocks hold, for the checks against the properties.
struct DataCounts {
  std::uint64_t entries = 0;
  std::uint64_t plain_deletions = 0;
  std::uint64_t point_deletions = 0;
  std::uint64_t merges = 0;
};

// The value type is the tag's low byte (db/dbformat.h): kTypeDeletion 0x0, kTypeMerge 0x2,
// kTypeSingleDeletion 0x7, kTypeDeletionWithTimestamp 0x14.
void CountType(ByteSpan internal_key, DataCounts& counts) {
  if (internal_key.size() < 8) return;  // the block walk already refused it
  const std::uint8_t type = internal_key[internal_key.size() - 8];
  if (type == 0x0) ++counts.plain_deletions;
  if (type == 0x0 || type == 0x7 || type == 0x14) ++counts.point_deletions;
  if (type == 0x2) ++counts.merges;
}

// Every check that stops at the first problem: checksums and structure of every block, index
// separators, the entry count. The data blocks are checked by the range scan between Before and
// After.
class StructureCheck {
 public:
  explicit StructureCheck(const SstReader& sst) : sst_(sst) {}

  // Every check made before the data blocks.
  Status Before() {
    const TrailerFormat trailer = sst_.BlockOptions().trailer;
    const std::string& src = sst_.source();
    BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(sst_.file(), sst_.footer().metaindex_handle, src,
                                             trailer, "metaindex block"));
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_.file(), sst_.index_handle(), src, trailer, "index block"));
    BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(sst_.metaindex_block(), KeyOrder::kBytewise).status());
    for (const SstMetaindexEntry& e : sst_.metaindex()) {
      if (!e.handle) continue;
      BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(sst_.file(), *e.handle, src, trailer,
                                               "meta block " + PrintableName(e.key)));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyBlock(sst_.index_block(), sst_.index_key_order(), sst_.index_value_encoding())
            .status());
    BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachIndexPartition(
        [&](ByteSpan, const BlockHandle& h) { return CheckIndexBlock(h, "index partition"); }));
    if (sst_.filter() && sst_.filter()->placement == FilterPlacement::kPartitioned) {
      BLOOMCODEC_ASSIGN_OR_RETURN(Block index, Block::Parse(sst_.filter()->contents, src,
                                                            "filter partition index",
                                                            BlockFooterLayout::kRocksDb));
      BLOOMCODEC_RETURN_IF_ERROR(
          VerifyBlock(index, sst_.index_key_order(), sst_.index_value_encoding()).status());
      BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachIndexEntry(index, [&](ByteSpan, const BlockHandle& h) {
        return VerifyTrailer(sst_.file(), h, src, trailer, "filter partition");
      }));
    }
    if (sst_.filter() && sst_.filter()->placement == FilterPlacement::kBlockBased) {
      // The layout RocksDB's BlockBasedFilterBlockBuilder writes (LevelDB's).
      BLOOMCODEC_RETURN_IF_ERROR(leveldb::ParseFilterBlockLayout(sst_.filter()->contents.bytes(),
                                                                 src, sst_.filter()->handle.offset)
                                     .status());
    }
    return Status();
  }

  // Every check made after the data blocks, given what they held.
  Status After(const DataCounts& counts) {
    entries_ = counts.entries;
    plain_deletions_ = counts.plain_deletions;
    point_deletions_ = counts.point_deletions;
    merges_ = counts.merges;
    BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachRangeDeletion([&](ByteSpan, ByteSpan) {
      ++range_deletions_;
      return Status();
    }));
    if (sst_.properties()) BLOOMCODEC_RETURN_IF_ERROR(CheckCounts());
    return Status();
  }

  std::uint64_t entries() const { return entries_; }
  std::uint64_t range_deletions() const { return range_deletions_; }

 private:
  // The counts RocksDB's table builder keeps as it adds entries (BlockBasedTableBuilder::Add):
  // num.entries counts every entry, range deletions included (they go to their own block);
  // num.range-deletions those; merge.operands the merges; deleted.keys the point deletions, to
  // which releases since 6.x add the range deletions (5.x counted them in a collector that saw
  // kTypeDeletion only), so it must lie between the two readings.
  Status CheckCounts() const {
    const TableProperties& props = *sst_.properties();
    const std::uint64_t at = sst_.properties_handle()->offset;
    const std::string& src = sst_.source();
    const std::uint64_t all = entries_ + range_deletions_;
    if (auto n = props.Number("rocksdb.num.entries"); n && *n != all) {
      return Status::Corrupt(src, at,
                             "rocksdb.num.entries equal to the " + std::to_string(entries_) +
                                 " entries of the data blocks + " +
                                 std::to_string(range_deletions_) + " range deletions (" +
                                 std::to_string(all) + ")",
                             std::to_string(*n));
    }
    if (auto n = props.Number("rocksdb.num.range-deletions"); n && *n != range_deletions_) {
      return Status::Corrupt(src, at,
                             "rocksdb.num.range-deletions equal to the " +
                                 std::to_string(range_deletions_) +
                                 " entries of the range deletion block",
                             std::to_string(*n));
    }
    if (auto n = props.Number("rocksdb.merge.operands"); n && *n != merges_) {
      return Status::Corrupt(src, at,
                             "rocksdb.merge.operands equal to the " + std::to_string(merges_) +
                                 " merge entries of the data blocks",
                             std::to_string(*n));
    }
    const std::uint64_t most = point_deletions_ + range_deletions_;
    if (auto n = props.Number("rocksdb.deleted.keys"); n && (*n < plain_deletions_ || *n > most)) {
      return Status::Corrupt(src, at,
                             "rocksdb.deleted.keys between the " +
                                 std::to_string(plain_deletions_) +
                                 " deletions of the data blocks and " + std::to_string(most) +
                                 " (all point deletions + range deletions)",
                             std::to_string(*n));
    }
    return Status();
  }

  Status CheckIndexBlock(const BlockHandle& h, std::string_view what) {
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_.file(), h, sst_.source(), sst_.BlockOptions().trailer, what));
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, sst_.ReadBlock(h, what));
    return VerifyBlock(b, sst_.index_key_order(), sst_.index_value_encoding()).status();
  }

  const SstReader& sst_;
  std::uint64_t entries_ = 0;
  std::uint64_t range_deletions_ = 0;
  std::uint64_t plain_deletions_ = 0;
  std::uint64_t point_deletions_ = 0;
  std::uint64_t merges_ = 0;
};

// The data blocks of an SST, as its index lists them (read once, before any range runs).
struct DataBlocks {
  std::vector<BlockHandle> handles;
  KeyList index_keys;
  Status index_error;  // the index could not be walked past the last block listed
};

// How the stored keys are asked of the filter.
enum class Probe {
  kNone,         // not asked (no filter, or one point lookups do not consult)
  kFull,         // the full filter, in batches
  kPartitioned,  // in batches per filter partition
  kPerKey,       // block-based filters, or a full filter that does not parse: the read path
};

struct SstScan {
  const SstReader& sst;
  const InputFile& file;
  const DataBlocks& blocks;
  Probe probe;
  const FullFilterReader* full;  // kFull
  const std::optional<PrefixExtractor>& prefix;
  StreamLimits limits;
};

// One range's share of the result; the shares are merged in block order.
struct SstRangeResult {
  std::optional<Status> structure;  // the first damage in the range: the range stops there
  std::optional<Status> filter;     // the filter could not be asked: no key from there counts
  DataCounts counts;
  std::uint64_t distinct = 0;        // user keys, each once (the range's first counted as new)
  std::uint64_t filter_entries = 0;  // what the builder added: whole keys and new prefixes
  std::uint64_t false_negatives = 0;
  std::vector<ByteVector> listed;  // up to kMaxListedFalseNegatives + 1, in key order
  bool any = false;
  ByteVector first_user;
  bool first_false_negative = false;  // the range's first user key was answered "absent"
  ByteVector last_user;
  bool any_prefix = false;
  ByteVector first_prefix;
  ByteVector last_prefix;
};

bool SameBytes(ByteSpan a, ByteSpan b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// A range's distinct user keys waiting for their batch probe (reused: no allocation per key).
class KeyChunk {
 public:
  KeyChunk(const SstScan& scan, SstRangeResult& out) : scan_(scan), out_(out) {
    const std::size_t n = std::min<std::size_t>(scan.limits.chunk_keys, 1 << 16);
    users_.Reserve(n, n * 32);
    prefixes_.Reserve(n, n * 16);
    sub_users_.Reserve(n, n * 32);
    sub_prefixes_.Reserve(n, n * 16);
    has_prefix_.reserve(n);
    whole_answers_.reserve(n);
    prefix_answers_.reserve(n);
    sub_answers_.reserve(n);
  }

  bool full() const { return users_.size() >= scan_.limits.chunk_keys; }

  // `prefix`: the key's prefix when it lies in the extractor's domain.
  void Add(ByteSpan user, const ByteSpan* prefix, bool range_first) {
    if (range_first) range_first_ = users_.size();
    users_.Add(user);
    has_prefix_.push_back(prefix != nullptr ? 1 : 0);
    if (prefix) prefixes_.Add(*prefix);
  }

  // Probes the keys collected. False once the filter could not be asked (out.filter is set).
  bool Flush() {
    if (users_.empty()) return true;
    whole_answers_.assign(users_.size(), 1);
    prefix_answers_.assign(prefixes_.size(), 1);
    std::size_t asked = users_.size();  // the keys before the first whose filter fails
    switch (scan_.probe) {
      case Probe::kNone: break;
      case Probe::kFull:
        if (scan_.sst.whole_key_filtering()) scan_.full->MayContainBatch(users_, whole_answers_);
        if (!prefixes_.empty()) scan_.full->MayContainBatch(prefixes_, prefix_answers_);
        break;
      case Probe::kPartitioned: asked = ProbePartitions(); break;
      case Probe::kPerKey: asked = ProbeEachKey(); break;
    }
    std::size_t p = 0;
    for (std::size_t i = 0; i < asked; ++i) {
      bool maybe = whole_answers_[i] != 0;
      if (has_prefix_[i] && prefix_answers_[p++] == 0) maybe = false;
      if (maybe) continue;
      if (i == range_first_) out_.first_false_negative = true;
      ++out_.false_negatives;
      if (out_.listed.size() <= kMaxListedFalseNegatives) {
        out_.listed.emplace_back(users_[i].begin(), users_[i].end());
      }
    }
    users_.Clear();
    prefixes_.Clear();
    has_prefix_.clear();
    range_first_ = kNone;
    return asked == whole_answers_.size();
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  // Whether key i asks the filter at all (without whole-key filtering only its prefix does).
  bool Asks(std::size_t i) const { return scan_.sst.whole_key_filtering() || has_prefix_[i]; }

  // As SstReader::MayContain and FilterHolds per key: the read path (slow; rare filters).
  std::size_t ProbeEachKey() {
    std::size_t p = 0;
    for (std::size_t i = 0; i < users_.size(); ++i) {
      Result<bool> maybe = scan_.sst.MayContain(users_[i]);
      if (!maybe.ok()) return Fail(i, maybe.status());
      bool answer = *maybe;
      if (has_prefix_[i]) {
        if (answer) {
          Result<bool> holds = scan_.sst.FilterHolds(prefixes_[p], users_[i]);
          if (!holds.ok()) return Fail(i, holds.status());
          answer = *holds;
        }
        ++p;
      }
      whole_answers_[i] = answer ? 1 : 0;
    }
    return users_.size();
  }

  // Consecutive keys of the same partition probed as one batch of that partition's filter.
  std::size_t ProbePartitions() {
    const bool whole = scan_.sst.whole_key_filtering();
    std::size_t p = 0;  // prefixes before key i
    std::size_t i = 0;
    while (i < users_.size()) {
      if (!Asks(i)) {
        ++i;
        continue;
      }
      Result<BlockHandle> partition = scan_.sst.FilterBlockFor(users_[i]);
      if (!partition.ok()) return Fail(i, partition.status());
      if (Status s = LoadPartition(*partition); !s.ok()) return Fail(i, s);
      // The keys up to the first that asks another partition (or cannot be placed).
      sub_users_.Clear();
      sub_prefixes_.Clear();
      const std::size_t begin = i, prefix_begin = p;
      std::optional<std::pair<std::size_t, Status>> stop;
      for (; i < users_.size(); ++i) {
        if (i > begin && Asks(i)) {
          Result<BlockHandle> h = scan_.sst.FilterBlockFor(users_[i]);
          if (!h.ok()) {
            stop.emplace(i, h.status());
            break;
          }
          if (h->offset != partition->offset || h->size != partition->size) break;
        }
        if (whole) sub_users_.Add(users_[i]);
        if (has_prefix_[i]) sub_prefixes_.Add(prefixes_[p++]);
      }
      if (whole) {
        sub_answers_.resize(sub_users_.size());
        partition_->MayContainBatch(sub_users_, sub_answers_);
        std::copy(sub_answers_.begin(), sub_answers_.end(), whole_answers_.begin() + begin);
      }
      if (!sub_prefixes_.empty()) {
        sub_answers_.resize(sub_prefixes_.size());
        partition_->MayContainBatch(sub_prefixes_, sub_answers_);
        std::copy(sub_answers_.begin(), sub_answers_.end(), prefix_answers_.begin() + prefix_begin);
      }
      if (stop) return Fail(stop->first, stop->second);
    }
    return users_.size();
  }

  Status LoadPartition(const BlockHandle& h) {
    if (partition_ && h.offset == partition_handle_.offset && h.size == partition_handle_.size) {
      return Status();
    }
    partition_.reset();
    BLOOMCODEC_ASSIGN_OR_RETURN(
        partition_contents_, blocktable::ReadBlock(scan_.sst.file(), h, scan_.sst.source(),
                                                   scan_.sst.BlockOptions(), "filter partition"));
    BLOOMCODEC_ASSIGN_OR_RETURN(
        FullFilterReader f,
        FullFilterReader::Parse(partition_contents_.bytes(), scan_.sst.source()));
    partition_.emplace(std::move(f));
    partition_handle_ = h;
    return Status();
  }

  std::size_t Fail(std::size_t i, Status s) {
    out_.filter = std::move(s);
    return i;
  }

  const SstScan& scan_;
  SstRangeResult& out_;
  KeyList users_;
  KeyList prefixes_;  // of the keys with has_prefix_, in order
  std::vector<std::uint8_t> has_prefix_;
  std::vector<std::uint8_t> whole_answers_;
  std::vector<std::uint8_t> prefix_answers_;
  std::size_t range_first_ = kNone;
  // kPartitioned: the partition asked last, and the keys of one partition's batch.
  BlockHandle partition_handle_;
  blocktable::BlockContents partition_contents_;
  std::optional<FullFilterReader> partition_;
  KeyList sub_users_;
  KeyList sub_prefixes_;
  std::vector<std::uint8_t> sub_answers_;
};

// Checks blocks [range.begin, range.end) as the structure check does and asks the filter for
// every distinct user key (and prefix) as the per-key pass did.
void ScanSstRange(const SstScan& scan, BlockRange range, SstRangeResult& out) {
  const SstReader& sst = scan.sst;
  const std::vector<BlockHandle>& blocks = scan.blocks.handles;
  const bool whole = sst.whole_key_filtering();
  bool passing = scan.probe != Probe::kNone;
  KeyChunk chunk(scan, out);
  blocktable::PageDropper dropper(&scan.file, scan.limits.drop_window);
  if (range.begin < range.end) dropper.Start(blocks[range.begin].offset);
  for (std::size_t b = range.begin; b < range.end && !out.structure; ++b) {
    const BlockHandle& h = blocks[b];
    const auto fail = [&](Status s) { out.structure = std::move(s); };
    if (Status s =
            VerifyTrailer(sst.file(), h, sst.source(), sst.BlockOptions().trailer, "data block");
        !s.ok()) {
      fail(s);
      break;
    }
    Result<Block> read = sst.ReadDataBlock(h);
    if (!read.ok()) {
      fail(read.status());
      break;
    }
    const Block& block = *read;
    // One walk gives the keys and VerifyBlock's verdict. A block VerifyBlock refuses stops the
    // range before its keys count: a range with a structure error is dropped whole by the merge,
    // so the keys walked before the damage was known change nothing.
    CheckedBlockWalk it(block, KeyOrder::kInternal);
    Status walked = it.SeekToFirst();
    while (walked.ok() && it.valid()) {
      const ByteSpan key = it.key();
      CountType(key, out.counts);
      const ByteSpan user = UserKeyOf(key);
      if (passing) {
        // While the pass goes on, out.last_user is the user key of the entry before (kept once
        // per block, not per key): within a block, compare with that entry, which shares
        // it.shared() bytes.
        const bool same = it.entries() > 1
                              ? SameBytesAfter(UserKeyOf(it.previous_key()), user, it.shared())
                              : out.any && SameBytes(out.last_user, user);
        if (!same) {
          const bool range_first = !out.any;
          if (range_first) out.first_user.assign(user.begin(), user.end());
          out.any = true;
          ++out.distinct;
          if (whole) ++out.filter_entries;
          ByteSpan p;
          const bool in_domain = scan.prefix && scan.prefix->InDomain(user);
          if (in_domain) {
            p = scan.prefix->Transform(user);
            if (!out.any_prefix || !SameBytes(p, out.last_prefix)) {
              ++out.filter_entries;
              if (!out.any_prefix) out.first_prefix.assign(p.begin(), p.end());
              out.last_prefix.assign(p.begin(), p.end());
              out.any_prefix = true;
            }
          }
          chunk.Add(user, in_domain ? &p : nullptr, range_first);
          if (chunk.full() && !chunk.Flush()) {
            passing = false;
            out.last_user.assign(user.begin(), user.end());
          }
        }
      }
      walked = it.Next();
    }
    if (passing && it.entries() > 0) {
      const ByteSpan user = UserKeyOf(it.key());
      out.last_user.assign(user.begin(), user.end());
    }
    if (!it.damage().ok()) {
      fail(it.damage());
      break;
    }
    if (it.entries() == 0) continue;
    const ByteSpan last = it.key();
    const ByteSpan compared = sst.index_key_is_user_key() ? UserKeyOf(last) : last;
    const ByteSpan index_key = scan.blocks.index_keys[b];
    if (CompareKeys(sst.index_key_order(), index_key, compared) < 0) {
      fail(Status::Corrupt(sst.source(), h.offset,
                           "an index key at or after the data block's last key",
                           ToHex(index_key) + " < " + ToHex(compared)));
      break;
    }
    out.counts.entries += it.entries();
    dropper.Done(h.offset + h.size + blocktable::kBlockTrailerSize);
  }
  if (passing) chunk.Flush();
  if (range.begin < range.end) {
    const BlockHandle& h = blocks[range.end - 1];
    dropper.Done(h.offset + h.size + blocktable::kBlockTrailerSize, true);
  }
}

// The merged shares: what one pass over the whole table gives.
struct SstTotals {
  std::optional<Status> structure;
  std::optional<Status> filter;
  DataCounts counts;
  std::uint64_t distinct = 0;
  std::uint64_t filter_entries = 0;
};

SstTotals ScanSst(const SstScan& scan, FileReport& report) {
  const std::vector<BlockHandle>& blocks = scan.blocks.handles;
  std::vector<std::uint64_t> sizes(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    sizes[i] = blocks[i].size + blocktable::kBlockTrailerSize;
  }
  const std::vector<BlockRange> ranges = blocktable::SplitIntoRanges(sizes, scan.limits);
  std::vector<SstRangeResult> results(ranges.size());
  ParallelFor(ranges.size(), [&](std::size_t r) { ScanSstRange(scan, ranges[r], results[r]); });

  SstTotals t;
  const bool whole = scan.sst.whole_key_filtering();
  bool carried = false;
  ByteVector carried_user;
  bool carried_prefix = false;
  ByteVector carried_prefix_bytes;
  for (SstRangeResult& r : results) {
    if (r.structure) {
      t.structure = std::move(r.structure);
      return t;
    }
    t.counts.entries += r.counts.entries;
    t.counts.plain_deletions += r.counts.plain_deletions;
    t.counts.point_deletions += r.counts.point_deletions;
    t.counts.merges += r.counts.merges;
    if (t.filter) continue;  // the pass stopped: only the structure still counts
    if (r.any) {
      // The range took its first key as new; it may repeat the key the range before ended with.
      const bool repeat = carried && carried_user == r.first_user;
      t.distinct += r.distinct - (repeat ? 1 : 0);
      t.filter_entries += r.filter_entries - (repeat && whole ? 1 : 0);
      const std::size_t skip = repeat && r.first_false_negative ? 1 : 0;
      for (std::size_t i = skip; i < r.listed.size(); ++i) report.AddFalseNegative(r.listed[i]);
      report.false_negative_count += r.false_negatives - skip - (r.listed.size() - skip);
      if (r.any_prefix) {
        if (carried_prefix && carried_prefix_bytes == r.first_prefix) --t.filter_entries;
        carried_prefix = true;
        carried_prefix_bytes = std::move(r.last_prefix);
      }
      carried = true;
      carried_user = std::move(r.last_user);
    }
    if (r.filter) t.filter = std::move(r.filter);
  }
  if (!scan.blocks.index_error.ok()) t.structure = scan.blocks.index_error;
  return t;
}

void AddFill(const SstReader& sst, std::uint64_t distinct_keys, FileReport& report) {
  Result<SstFilterStats> stats = ComputeSstFilterStats(sst);
  if (!stats.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, stats.status()));
    return;
  }
  FillReport fill;
  fill.bits = stats->bits;
  fill.bits_set = stats->bits_set;
  fill.hash_count = stats->hash_count;
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = stats->fp_rate;
  fill.sized_keys = static_cast<double>(distinct_keys);
  fill.sized_keys_from = "table";
  // A Ribbon solution is about half ones whatever it holds: its fill says nothing of its keys.
  // A block-based filter is many small filters: one fill over all of them estimates no count.
  if (stats->ribbon || sst.filter()->placement == FilterPlacement::kBlockBased) {
    fill.estimated_keys = std::numeric_limits<double>::quiet_NaN();
  }
  if (!stats->ribbon && stats->filters == 1 && fill.bits > 0) {
    FillStatistics s = ComputeFillStatistics(fill.bits, fill.bits_set, fill.hash_count);
    fill.estimated_keys = s.estimated_keys;
    const std::string reason =
        OverfillReason(s, static_cast<double>(distinct_keys), "in its data blocks");
    if (!reason.empty()) {
      report.Add(Severity::kError, finding_kind::kOverfilled,
                 reason + ": the filter was damaged or built for other keys",
                 sst.filter()->handle.offset);
    }
  }
  if (stats->always_match) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "a filter RocksDB answers \"may match\" for every key (reserved or unusable "
               "metadata): it filters nothing",
               sst.filter()->handle.offset);
  }
  report.fill = fill;
}

}  // namespace

FileReport VerifySst(const std::string& path, const KeyStream* probes, const std::string& group,
                     const std::optional<PrefixExtractor>& prefix_override) {
  FileReport report;
  report.path = path;
  report.format = "rocksdb-sst";
  report.group = group;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  SstOpenOptions open;
  open.verify_checksums = true;
  Result<SstReader> opened = SstReader::Open(in->bytes(), path, open);
  if (!opened.ok()) {
    const bool unsupported = opened.status().code() == StatusCode::kUnsupported;
    report.findings.push_back(FindingFromStatus(
        Severity::kError, unsupported ? finding_kind::kUnsupported : finding_kind::kStructure,
        opened.status()));
    return report;
  }
  const SstReader& sst = *opened;
  if (sst.properties()) {
    // The policy name comes from the file (JSON needs UTF-8).
    report.version = PrintableName(sst.properties()->String("rocksdb.filter.policy").value_or(""));
  }
  // The prefix extractor: the command line's, else a built-in one the properties name.
  const std::string extractor_name =
      sst.properties() ? sst.properties()->String("rocksdb.prefix.extractor.name").value_or("")
                       : std::string();
  std::optional<PrefixExtractor> prefix = prefix_override;
  if (!prefix) prefix = PrefixExtractor::FromPropertyName(extractor_name);
  if (sst.filter() && sst.filter()->placement == FilterPlacement::kBlockBased) prefix.reset();
  // Whether the stored keys are asked of the filter (below, after the structure passed), and how.
  Probe probe = Probe::kNone;
  std::optional<FullFilterReader> full;
  if (sst.filter() && (sst.whole_key_filtering() || prefix)) {
    switch (sst.filter()->placement) {
      case FilterPlacement::kFull:
        if (auto f = FullFilterReader::Parse(sst.filter()->contents.bytes(), path); f.ok()) {
          full.emplace(std::move(f).value());
          probe = Probe::kFull;
        } else {
          probe = Probe::kPerKey;  // the read path reports it at the first key that asks
        }
        break;
      case FilterPlacement::kPartitioned: probe = Probe::kPartitioned; break;
      case FilterPlacement::kBlockBased: probe = Probe::kPerKey; break;
    }
  }

  // The structure (stops at the first problem), with every data block checked in ranges on the
  // run's workers, which also ask the filter for every stored user key (each once).
  StructureCheck structure(sst);
  Status s = structure.Before();
  if (!s.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
    return report;
  }
  DataBlocks blocks;
  blocks.index_error = sst.ForEachDataBlock([&](ByteSpan key, const BlockHandle& handle) {
    blocks.handles.push_back(handle);
    blocks.index_keys.Add(key);
    return Status();
  });
  in->AdviseSequential();
  const SstScan scan{
      sst, *in, blocks, probe, full ? &*full : nullptr, prefix, blocktable::CurrentStreamLimits()};
  SstTotals totals = ScanSst(scan, report);
  if (!totals.structure) {
    if (Status after = structure.After(totals.counts); !after.ok()) totals.structure = after;
  }
  if (totals.structure) {
    // Nothing of the filter pass is reported for a damaged table.
    report.false_negative_count = 0;
    report.false_negatives.clear();
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, *totals.structure));
    return report;
  }
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
    report.keys_checked = structure.entries();
    // Every probe is answered "may contain": a read pays fp rate 1 (as for a LevelDB table).
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
    return report;
  }
  if (!sst.whole_key_filtering() && !prefix) {
    const bool custom = !extractor_name.empty() && extractor_name != "nullptr";
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "whole_key_filtering is off: the filter holds prefixes, and without the prefix "
               "extractor (" +
                   (custom ? "the custom " + PrintableName(extractor_name) +
                                 ", not one we apply; --prefix-extractor fixed:N|capped:N|noop "
                                 "names one"
                           : std::string("none recorded")) +
                   ") point lookups do not consult it");
    report.keys_checked = structure.entries();
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
    return report;
  }
  if (totals.filter) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, *totals.filter));
    return report;
  }
  // What RocksDB's builder added to the filter: each prefix once per run of equal prefixes,
  // and the whole keys with whole-key filtering.
  const std::uint64_t distinct = totals.distinct;
  const std::uint64_t filter_entries = totals.filter_entries;
  report.keys_checked = distinct;
  if (probes != nullptr) {
    KeyList copy;  // the SST's batch path takes a KeyList: one chunk at a time
    const FileReport::Asked asked = report.AskKeys(*probes, [&](auto chunk, auto answers) {
      copy.Assign(chunk);
      return sst.MayContainBatch(copy, answers);
    });
    if (!asked.asked.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kStructure, asked.asked));
      return report;
    }
    if (!asked.read.ok()) {
      report.findings.push_back(
          FindingFromStatus(Severity::kError, finding_kind::kUnreadable, asked.read));
    }
  }
  report.FinishFalseNegatives("the filter");
  AddFill(sst, prefix ? filter_entries : distinct, report);
  return report;
}

}  // namespace bloomcodec::rocksdb
