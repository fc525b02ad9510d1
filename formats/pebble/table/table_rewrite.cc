// `convert T --to pebble-table --bits-per-key B`: a Pebble row table's filter rebuilt from its own
// keys, every other block carried over (see table_writer.h). The blocks after the data blocks
// are laid out again in their order in the input, which is Pebble's (FORMAT.md §5.1).
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/trailer.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/table/table_writer.h"
#include "pebble/table/value_index.h"

namespace bloomcodec::pebble {

using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::kBlockTrailerSize;
using blocktable::KeyOrder;

namespace {

// The state of one rewrite: the input's blocks, and the output as it grows.
class Rewriter {
 public:
  Rewriter(const PebbleTable& t, ByteSpan filter, std::uint64_t data_blocks_end)
      : t_(t), filter_(filter), data_blocks_end_(data_blocks_end) {}
  Result<PebbleTail> Run();

 private:
  Status CollectMoved();
  Status EmitMoved(const MovedBlock& m);
  Result<BlockHandle> RewriteTopIndex();
  BlockCompression IndexCompression() const;
  Status WriteProperties();
  Result<BlockHandle> Copy(const BlockHandle& h);

  const PebbleTable& t_;
  ByteSpan filter_;
  std::uint64_t data_blocks_end_;  // where the last data block's trailer ends
  std::uint64_t base_ = 0;         // the bytes kept before out_ (the data blocks)
  ByteVector out_;
  std::vector<MovedBlock> moved_;
  std::map<std::uint64_t, BlockHandle> partitions_;  // old offset -> new handle
  // Meta blocks by old offset -> new handle: Pebble's writer names its range deletion block
  // twice (rocksdb.range_del and rocksdb.range_del2), and it is copied once.
  std::map<std::uint64_t, BlockHandle> copied_;
  std::vector<BlockHandle> new_values_;
  std::map<std::string, ByteVector> meta_;  // metaindex: name -> value
  BlockHandle index_;
  std::int64_t top_index_growth_ = 0;    // uncompressed bytes the top-level index gained
  std::int64_t value_index_growth_ = 0;  // bytes the value index gained
};

Result<BlockHandle> Rewriter::Copy(const BlockHandle& h) {
  BLOOMCODEC_RETURN_IF_ERROR(
      blocktable::CheckHandleInFile(h, t_.file().size(), t_.source(), "block moved"));
  const BlockHandle moved{base_ + out_.size(), h.size};
  const ByteSpan whole = t_.file().subspan(h.offset, h.size + kBlockTrailerSize);
  out_.insert(out_.end(), whole.begin(), whole.end());
  return moved;
}

Status Rewriter::CollectMoved() {
  if (t_.two_level_index()) {
    BLOOMCODEC_RETURN_IF_ERROR(t_.ForEachIndexPartition([&](ByteSpan, const BlockHandle& h) {
      moved_.push_back({Moved::kPartition, h, {}});
      return Status();
    }));
    moved_.push_back({Moved::kTopIndex, t_.footer().index_handle, {}});
  } else {
    moved_.push_back({Moved::kCopied, t_.footer().index_handle, {}});
  }
  BLOOMCODEC_RETURN_IF_ERROR(CollectMetaindexBlocks(t_, moved_));
  std::stable_sort(moved_.begin(), moved_.end(), [](const MovedBlock& a, const MovedBlock& b) {
    return a.old.offset < b.old.offset;
  });
  // Each block's dependants come after it, as Pebble writes them: partitions before their top
  // level, value blocks before their index.
  const auto first = [&](Moved w) {
    return std::find_if(moved_.begin(), moved_.end(),
                        [&](const MovedBlock& m) { return m.what == w; });
  };
  const auto last = [&](Moved w) {
    auto it = std::find_if(moved_.rbegin(), moved_.rend(),
                           [&](const MovedBlock& m) { return m.what == w; });
    return it == moved_.rend() ? moved_.end() : std::prev(it.base());
  };
  if ((last(Moved::kPartition) != moved_.end() &&
       last(Moved::kPartition) > first(Moved::kTopIndex)) ||
      (last(Moved::kValueBlock) != moved_.end() &&
       last(Moved::kValueBlock) > first(Moved::kValueIndex))) {
    return Status::Unsupported(
        t_.source() +
        ": an index partition after the top-level index, or a value block "
        "after the value index: not laid out as Pebble writes; not rewritten");
  }
  return Status();
}

// The compression the table's index blocks were written with: the properties' name for it, else
// the type of the first compressed index block (a block compression saved too little for is
// stored raw, so one raw block does not tell).
BlockCompression Rewriter::IndexCompression() const {
  if (const std::optional<std::string> name = t_.properties().String("rocksdb.compression")) {
    if (*name == "Snappy") return BlockCompression::kSnappy;
    if (*name == "ZSTD") return BlockCompression::kZstd;
    if (*name == "NoCompression") return BlockCompression::kNone;
  }
  for (const MovedBlock& m : moved_) {
    if (m.what != Moved::kPartition && m.what != Moved::kTopIndex) continue;
    const std::uint8_t type = t_.file()[m.old.offset + m.old.size];
    if (type != 0) return static_cast<BlockCompression>(type);
  }
  return BlockCompression::kNone;
}

// The top-level index names its partitions by offset. When none of them moved (the new filter
// has the old one's size) its stored bytes are copied as they are: re-encoding would give the same
// entries, but a compressed block would come out of our Snappy, not Go's (golang/snappy, which
// Pebble uses, leaves the last 15 bytes literal), and the table would differ for nothing.
Result<BlockHandle> Rewriter::RewriteTopIndex() {
  if (std::all_of(partitions_.begin(), partitions_.end(),
                  [](const auto& p) { return p.first == p.second.offset; })) {
    return Copy(t_.footer().index_handle);
  }
  ByteVector block_bytes;
  {
    blocktable::BlockBuilder top(1);
    BLOOMCODEC_RETURN_IF_ERROR(blocktable::ForEachIndexEntry(
        t_.index_block(), KeyOrder::kInternal, blocktable::ValueEncoding::kLengthPrefixed,
        [&](const blocktable::IndexEntry& e) -> Result<BlockHandle> {
          BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, t_.DecodeIndexValue(e));
          // The handle's varints, then its block properties as they are.
          ByteReader r(e.value, t_.source(), 0);
          BLOOMCODEC_RETURN_IF_ERROR(blocktable::ReadBlockHandle(r, "index handle").status());
          const auto moved = partitions_.find(h.offset);
          if (moved == partitions_.end()) {
            return Status::Internal("a partition the top-level index names was not moved")
                .WithFile(t_.source());
          }
          ByteVector value = blocktable::BlockHandleBytes(moved->second);
          const ByteSpan props = e.value.subspan(r.position());
          value.insert(value.end(), props.begin(), props.end());
          top.Add(e.key, value);
          return h;
        },
        [](ByteSpan, const BlockHandle&) { return Status(); }));
    const ByteSpan finished = top.Finish();
    block_bytes.assign(finished.begin(), finished.end());
  }
  top_index_growth_ = static_cast<std::int64_t>(block_bytes.size()) -
                      static_cast<std::int64_t>(t_.index_block().contents().bytes().size());
  return AppendPebbleBlock(block_bytes, t_.footer().checksum, IndexCompression(), out_, base_);
}

Status Rewriter::EmitMoved(const MovedBlock& m) {
  switch (m.what) {
    case Moved::kCopied: {
      auto done = copied_.find(m.old.offset);
      if (done == copied_.end() || done->second.size != m.old.size) {
        BLOOMCODEC_ASSIGN_OR_RETURN(const BlockHandle moved, Copy(m.old));
        done = copied_.insert_or_assign(m.old.offset, moved).first;
      }
      const BlockHandle h = done->second;
      if (m.meta_name.empty()) {
        index_ = h;
      } else {
        meta_[m.meta_name] = blocktable::BlockHandleBytes(h);
      }
      return Status();
    }
    case Moved::kPartition: {
      BLOOMCODEC_ASSIGN_OR_RETURN(partitions_[m.old.offset], Copy(m.old));
      return Status();
    }
    case Moved::kTopIndex: {
      BLOOMCODEC_ASSIGN_OR_RETURN(index_, RewriteTopIndex());
      return Status();
    }
    case Moved::kValueBlock: {
      BLOOMCODEC_ASSIGN_OR_RETURN(const BlockHandle h, Copy(m.old));
      new_values_.push_back(h);
      return Status();
    }
    case Moved::kValueIndex: {
      const AppendedValueIndex vi =
          AppendValueIndex(new_values_, t_.footer().checksum, out_, base_);
      value_index_growth_ =
          static_cast<std::int64_t>(vi.size) - static_cast<std::int64_t>(m.old.size);
      meta_[m.meta_name] = vi.metaindex_value;
      return Status();
    }
  }
  return Status();
}

Status Rewriter::WriteProperties() {
  std::map<std::string, ByteVector> props;
  for (const rocksdb::TableProperty& p : t_.properties().entries) {
    props[p.name] = ByteVector(p.raw.begin(), p.raw.end());
  }
  props["rocksdb.filter.policy"] = ByteVector(kBloomFamily.begin(), kBloomFamily.end());
  props["rocksdb.filter.size"] = VarintBytes(filter_.size());
  auto adjust = [&](const std::string& name, std::int64_t growth) {
    const std::optional<std::uint64_t> v = t_.Number(name);
    if (growth != 0 && v) props[name] = VarintBytes(static_cast<std::uint64_t>(*v + growth));
  };
  adjust("rocksdb.index.size", top_index_growth_);
  adjust("rocksdb.top-level.index.size", top_index_growth_);
  adjust("pebble.value-blocks.size", value_index_growth_);
  meta_["rocksdb.properties"] = blocktable::BlockHandleBytes(
      AppendPebbleBlock(EncodeNamedBlock(props, kPropertiesRestartInterval), t_.footer().checksum,
                        BlockCompression::kNone, out_, base_));
  return Status();
}

Result<PebbleTail> Rewriter::Run() {
  BLOOMCODEC_RETURN_IF_ERROR(CollectMoved());
  // The data region ends where the first block after the data blocks begins.
  std::uint64_t data_end = t_.properties_handle().offset;
  for (const MovedBlock& m : moved_) data_end = std::min(data_end, m.old.offset);
  if (t_.filter().stored()) {
    data_end = std::min(data_end, t_.filter().handle.offset);
  }
  if (data_blocks_end_ > data_end) {
    return Status::Unsupported(t_.source() + ": a data block ends at " +
                               std::to_string(data_blocks_end_) +
                               ", after a meta or index block at " + std::to_string(data_end) +
                               ": not laid out as Pebble writes; not rewritten");
  }
  base_ = data_end;  // the data blocks are kept as they are, not copied
  meta_[std::string(kBloomFilterBlockName)] = blocktable::BlockHandleBytes(
      AppendPebbleBlock(filter_, t_.footer().checksum, BlockCompression::kNone, out_, base_));
  for (const MovedBlock& m : moved_) BLOOMCODEC_RETURN_IF_ERROR(EmitMoved(m));
  BLOOMCODEC_RETURN_IF_ERROR(WriteProperties());
  PebbleFooter footer;
  footer.version = t_.version();
  footer.footer = t_.footer();
  footer.footer.index_handle = index_;
  footer.footer.metaindex_handle =
      AppendPebbleBlock(EncodeNamedBlock(meta_, kMetaindexRestartInterval), t_.footer().checksum,
                        BlockCompression::kNone, out_, base_);
  AppendPebbleFooter(footer, out_);
  return PebbleTail{base_, std::move(out_)};
}

}  // namespace

Result<KeyList> PebbleFilterKeys(const PebbleTable& t, std::uint64_t* data_end_out) {
  if (t.comparer() == colblk::KeyComparer::kUnknown) {
    return Status::Unsupported(t.source() + ": comparer " + t.comparer_name() +
                               ": its Split is not known, so neither is what its filter holds");
  }
  KeyList keys;
  // Room for the keys the properties announce (their user keys: the raw key bytes less each
  // 8-byte trailer), so that the list does not copy itself as it grows; capped by the file's
  // size, as a number read from the file is never trusted with more memory than the file holds.
  const std::optional<std::uint64_t> entries = t.Number("rocksdb.num.entries");
  const std::optional<std::uint64_t> raw = t.Number("rocksdb.raw.key.size");
  if (entries && raw && *entries <= *raw / 8) {
    const std::uint64_t cap = t.file().size();  // end offsets of 8 bytes: at most half of it
    keys.Reserve(static_cast<std::size_t>(std::min(*entries, cap / 16)),
                 static_cast<std::size_t>(std::min(*raw - 8 * *entries, cap)));
  }
  std::uint64_t data_end = 0;
  BLOOMCODEC_RETURN_IF_ERROR(t.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) -> Status {
    data_end = std::max(data_end, h.offset + h.size + kBlockTrailerSize);
    BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::Block block, t.ReadDataBlock(h));
    blocktable::BlockIterator it(block, KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      const ByteSpan user = it.key().first(it.key().size() - 8);
      keys.Add(user.first(colblk::SplitUserKey(t.comparer(), user)));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    return Status();
  }));
  if (data_end_out) *data_end_out = data_end;
  return keys;
}

namespace {

// The probe era a table's own filter shows, for `num_hashes` collapsed hashes. Pebble's table of
// probe counts (352fbf1f5) is in no tagged Pebble release and in CockroachDB from 26.1 on; every
// tagged release, go-ethereum and CockroachDB up to 25.4 write the rounded counts (FORMAT.md
// §7.2). So the table era only where the filter's probe count is the table's, and not the rounded
// one's, at every whole bits per key that gives its line count for its hashes; where both agree
// (6 probes at 10 bits per key, Pebble's default), the rounded era.
BloomProbes ProbeEraOf(const BloomReader& old, std::uint64_t hashes) {
  bool table = false;
  // The adaptive policy goes up to 512 bits per key; lines grow with the bits per key.
  for (std::uint32_t b = 1; b <= 512 && BloomLines(hashes, b) <= old.num_lines(); ++b) {
    if (BloomLines(hashes, b) != old.num_lines()) continue;
    if (BloomProbeCount(b, BloomProbes::kRounded) == old.num_probes()) return BloomProbes::kRounded;
    if (BloomProbeCount(b, BloomProbes::kTable) == old.num_probes()) table = true;
  }
  return table ? BloomProbes::kTable : BloomProbes::kRounded;
}

}  // namespace

BloomPolicy PolicyFromEvidence(const PebbleTable& t, const HashFlavorEvidence& evidence,
                               std::uint64_t num_hashes, std::uint32_t bits_per_key) {
  BloomPolicy policy;
  policy.bits_per_key = bits_per_key;
  if (!t.filter().bloom || t.filter().bloom->empty()) return policy;
  policy.flavor = evidence.flavor();
  // Below Pebblev3 (RocksDBv2, LevelDB, Pebblev1, v2) the table comes from a Pebble before the
  // table era: from 352fbf1f5 on, a database writes Pebblev3 at least (FormatMinSupported's
  // MaxTableFormat, FORMAT.md §7.2).
  if (t.version() < kValuePrefixFormat) return policy;
  policy.probes = ProbeEraOf(*t.filter().bloom, num_hashes);
  return policy;
}

BloomPolicy PolicyForRewrite(const PebbleTable& t, const KeyList& filter_keys,
                             std::uint32_t bits_per_key, std::vector<std::uint64_t>* hashes) {
  // No old filter to read: no evidence, and the signed flavour it then chooses is Pebble's.
  HashFlavorEvidence evidence;
  if (t.filter().bloom && !t.filter().bloom->empty()) {
    evidence = DecideHashFlavor(*t.filter().bloom, filter_keys);
  }
  std::vector<std::uint64_t> collapsed = CollapsedBloomHashes(filter_keys, evidence.flavor());
  const BloomPolicy policy = PolicyFromEvidence(t, evidence, collapsed.size(), bits_per_key);
  if (hashes) *hashes = std::move(collapsed);
  return policy;
}

namespace {

Status RowTableOnly(const PebbleTable& t) {
  if (!t.columnar()) return Status();
  return Status::Unsupported(t.source() + ": " + PebbleFormatName(t.version()) +
                             " is columnar: its filter is rewritten for row tables "
                             "(Pebblev1..v4) only");
}

}  // namespace

Status CheckRewrittenFilter(ByteSpan rewritten, const std::string& source, const KeyList& keys) {
  PebbleOpenOptions options;
  options.footers = PebbleFooters::kPebbleAndRocksDb;
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable fresh, PebbleTable::Open(rewritten, source, options));
  if (!fresh.filter().bloom || fresh.filter().bloom->empty()) return Status();
  std::vector<std::uint8_t> answers(keys.size());
  fresh.MayContainBatch(keys, answers);
  if (std::find(answers.begin(), answers.end(), 0) != answers.end()) {
    return Status::Internal(source +
                            ": the rewritten filter answers \"not there\" for a key the table "
                            "holds (a bug: please report)");
  }
  return Status();
}

Result<PebbleRewrite> RewriteWithItsKeys(
    const PebbleTable& t,
    const std::function<Result<PebbleRewrite>(const PebbleFilterKeySet&)>& rewrite) {
  std::uint64_t data_end = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyList keys, PebbleFilterKeys(t, &data_end));
  return rewrite({keys, data_end});
}

Result<PebbleRewrite> RewritePebbleFilter(const PebbleTable& t, const BloomPolicy& policy) {
  BLOOMCODEC_RETURN_IF_ERROR(RowTableOnly(t));
  return RewriteWithItsKeys(
      t, [&](const PebbleFilterKeySet& read) { return RewritePebbleFilter(t, policy, read); });
}

Result<PebbleRewrite> RewritePebbleFilter(const PebbleTable& t, const BloomPolicy& policy,
                                          const PebbleFilterKeySet& read) {
  BLOOMCODEC_RETURN_IF_ERROR(RowTableOnly(t));
  return RewriteWhole(t, policy, read);
}

Result<PebbleTail> RewriteTail(const PebbleTable& t, const NewFilter& filter) {
  if (t.columnar()) return RewriteColumnarTail(t, filter);
  // No point key: Pebble v1 and v2 write a 0-byte filter block (FORMAT.md §7.1).
  const ByteSpan block = filter.block ? ByteSpan(*filter.block) : ByteSpan();
  return Rewriter(t, block, filter.data_end).Run();
}

Result<PebbleRewrite> RewriteWhole(const PebbleTable& t, const BloomPolicy& policy,
                                   const PebbleFilterKeySet& read) {
  NewFilter filter;
  BLOOMCODEC_ASSIGN_OR_RETURN(filter.block, BuildBloom(policy, read.keys));
  filter.data_end = read.data_end;
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTail tail, RewriteTail(t, filter));
  PebbleRewrite out;
  out.bytes.reserve(tail.kept + tail.tail.size());
  out.bytes.assign(t.file().begin(), t.file().begin() + static_cast<std::ptrdiff_t>(tail.kept));
  out.bytes.insert(out.bytes.end(), tail.tail.begin(), tail.tail.end());
  out.filter_keys = read.keys.size();
  return out;
}

Result<std::uint64_t> DataBlocksEnd(const PebbleTable& t) {
  std::uint64_t end = 0;
  BLOOMCODEC_RETURN_IF_ERROR(t.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    end = std::max(end, h.offset + h.size + kBlockTrailerSize);
    return Status();
  }));
  return end;
}

}  // namespace bloomcodec::pebble
