// Rebuilding a partitioned filter (partition_filters with a two-level index), keeping the data
// blocks and the index partitions byte for byte. Facts from RocksDB 7.8
// (table/block_based/partitioned_filter_block.cc, index_builder.cc, block_based_table_builder.cc;
// formats/rocksdb/FORMAT.md "Partitioned filters"):
// * Partitions are cut with the index's: when the index builder closes an index partition before
//   data block B (its first entry), the filter partition being built takes B's keys too and is
//   closed before the next key, under B's index key (the shortened separator, an internal key, or
//   the user key when rocksdb.index.key.is.user.key is 1). The last partition ends with the table
//   under the last block's index key. So partition j holds the keys of index partition j but its
//   first block, and the first block of index partition j + 1.
// * Each partition is a full filter of its own keys (the builder's consecutive-duplicate collapse
//   starts afresh), written uncompressed one after another right after the data blocks; then the
//   top-level filter index (index_block_restart_interval, delta-encoded keys, delta-encoded
//   handles when rocksdb.index.value.is.delta.encoded), under "partitionedfilter." + the policy's
//   compatibility name in the metaindex. rocksdb.filter.size counts the partitions and the
//   top-level index; rocksdb.num.filter_entries sums the partitions' collapsed entries.
// * Then the index partitions and the index's top level: moved by the filter's change of size,
//   the top level is re-encoded with their new offsets (rocksdb.index.size and
//   rocksdb.top-level.index.size follow its size) and compressed as RocksDB compresses index
//   blocks when the table's are compressed.
#include <algorithm>
#include <string>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/stream.h"
#include "codec/byte_writer.h"
#include "codec/parallel.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_rewrite_prefix.h"
#include "rocksdb/sst/sst_tail.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::rocksdb {

using blocktable::AppendBlockHandle;
using blocktable::AppendFooter;
using blocktable::Block;
using blocktable::BlockBuilder;
using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::Footer;
using blocktable::kBlockTrailerSize;
using blocktable::KeyOrder;
using blocktable::TrailerFormat;

namespace {

// An index block as RocksDB's BlockBuilder writes one (restart interval, keys delta-encoded
// within a restart run, values whole handles or, with delta values and a shared prefix, the
// zigzag varint of the size change against the previous entry's handle).
class PartitionIndexEncoder {
 public:
  PartitionIndexEncoder(std::size_t restart_interval, bool delta_values)
      : interval_(std::max<std::size_t>(1, restart_interval)), delta_(delta_values) {}

  void Add(ByteSpan key, const BlockHandle& h) {
    std::size_t shared = 0;
    if (counter_ >= interval_) {
      restarts_.push_back(static_cast<std::uint32_t>(out_.size()));
      counter_ = 0;
    } else {
      const std::size_t n = std::min(last_key_.size(), key.size());
      while (shared < n && last_key_[shared] == key[shared]) ++shared;
    }
    ByteVector value;
    if (delta_ && shared != 0) {
      const auto d = static_cast<std::int64_t>(h.size - last_.size);
      ByteWriter(value).PutVarint64((static_cast<std::uint64_t>(d) << 1) ^
                                    static_cast<std::uint64_t>(d >> 63));
    } else {
      AppendBlockHandle(h, value);
    }
    ByteWriter w(out_);
    w.PutVarint32(static_cast<std::uint32_t>(shared));
    w.PutVarint32(static_cast<std::uint32_t>(key.size() - shared));
    if (!delta_) w.PutVarint32(static_cast<std::uint32_t>(value.size()));
    w.PutBytes(key.subspan(shared));
    w.PutBytes(value);
    last_key_.assign(key.begin(), key.end());
    last_ = h;
    ++counter_;
  }
  ByteVector Finish() {
    ByteWriter w(out_);
    for (const std::uint32_t r : restarts_) w.PutLittleU32(r);
    w.PutLittleU32(static_cast<std::uint32_t>(restarts_.size()));
    return std::move(out_);
  }

 private:
  std::size_t interval_;
  bool delta_;
  std::size_t counter_ = 0;
  std::vector<std::uint32_t> restarts_{0};
  ByteVector out_;
  ByteVector last_key_;
  BlockHandle last_;
};

// One index partition: its handle and key in the top level, its data blocks and their keys.
struct IndexPartitionWalk {
  ByteVector top_key;
  BlockHandle handle;
  std::vector<BlockHandle> blocks;
  ByteVector first_key, last_key;  // index keys of its first and last data block
};

// One filter partition to build: its data blocks, its key in the filter's top level.
struct FilterPartitionPlan {
  std::vector<BlockHandle> blocks;
  ByteVector key;
  Status status;
  std::uint64_t entries = 0;          // data entries hashed
  std::vector<std::uint64_t> hashes;  // collapsed, as the bits builder keeps them
  ByteVector filter;
};

Result<std::vector<IndexPartitionWalk>> WalkIndexPartitions(const SstReader& sst) {
  std::vector<IndexPartitionWalk> parts;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachIndexPartition([&](ByteSpan key,
                                                           const BlockHandle& h) -> Status {
    IndexPartitionWalk p;
    p.top_key.assign(key.begin(), key.end());
    p.handle = h;
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, sst.ReadBlock(h, "index partition"));
    BLOOMCODEC_RETURN_IF_ERROR(
        sst.ForEachIndexEntry(block, [&](ByteSpan entry_key, const BlockHandle& data) {
          if (p.blocks.empty()) p.first_key.assign(entry_key.begin(), entry_key.end());
          p.last_key.assign(entry_key.begin(), entry_key.end());
          p.blocks.push_back(data);
          return Status();
        }));
    if (p.blocks.empty()) {
      return Status::Corrupt(sst.source(), h.offset, "an index partition with at least one entry");
    }
    parts.push_back(std::move(p));
    return Status();
  }));
  if (parts.empty()) {
    return Status::Corrupt(sst.source(), sst.index_handle().offset,
                           "a two-level index with at least one partition");
  }
  return parts;
}

// The filter partitions RocksDB's builder cuts along the index partitions (see the top).
std::vector<FilterPartitionPlan> PlanFilterPartitions(
    const std::vector<IndexPartitionWalk>& index) {
  std::vector<FilterPartitionPlan> plan(index.size());
  for (std::size_t m = 0; m < index.size(); ++m) {
    const auto& blocks = index[m].blocks;
    const std::size_t from = m == 0 ? 0 : 1;  // a later partition's first block closes the last
    plan[m].blocks.insert(plan[m].blocks.end(), blocks.begin() + static_cast<std::ptrdiff_t>(from),
                          blocks.end());
    if (m + 1 < index.size()) {
      plan[m].blocks.push_back(index[m + 1].blocks.front());
      plan[m].key = index[m + 1].first_key;
    } else {
      plan[m].key = index[m].last_key;
    }
  }
  return plan;
}

Status HashFilterPartition(const SstReader& sst, FilterEncoding encoding, bool hashing,
                           const InputFile* mapped, FilterPartitionPlan& part) {
  // A partition's blocks follow each other in the file: their pages are given back behind it.
  blocktable::BlockRunPages pages(mapped, part.blocks);
  for (const BlockHandle& h : part.blocks) {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, sst.ReadDataBlock(h));
    pages.Read(h);
    BlockIterator it(block, KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    while (it.valid()) {
      ++part.entries;
      if (hashing) {
        const ByteSpan user = UserKeyOf(it.key());
        AppendCollapsedHashes(encoding, std::span<const ByteSpan>(&user, 1), part.hashes);
      }
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
  }
  return Status();
}

// The partition's filter from its hashes, asked for every one of them.
Status FinishFilterPartition(const SstReader& sst, FilterEncoding encoding,
                             std::optional<double> bits_per_key, FilterPartitionPlan& part) {
  if (!bits_per_key) return Status();
  BLOOMCODEC_ASSIGN_OR_RETURN(part.filter,
                              BuildFullFilterFromHashes(encoding, *bits_per_key, part.hashes));
  if (part.filter.empty()) return Status();  // no keys: RocksDB's always-false empty block
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader reader,
                              FullFilterReader::Parse(part.filter, sst.source()));
  for (const std::uint64_t h : part.hashes) {
    if (!reader.HashMayMatch(h)) {
      return Status::Internal(sst.source() +
                              ": a rebuilt filter partition answers \"not there\" for a key "
                              "the table holds");
    }
  }
  return Status();
}

Status BuildFilterPartition(const SstReader& sst, FilterEncoding encoding,
                            std::optional<double> bits_per_key, const InputFile* mapped,
                            FilterPartitionPlan& part) {
  BLOOMCODEC_RETURN_IF_ERROR(
      HashFilterPartition(sst, encoding, bits_per_key.has_value(), mapped, part));
  return FinishFilterPartition(sst, encoding, bits_per_key, part);
}

// With a prefix extractor the builder's state runs from one partition into the next (the
// prefixes added at cuts): the entries come from one pass in file order; the filters are then
// built side by side.
Status BuildPrefixedPartitions(const SstReader& sst, const PrefixExtractor& extractor,
                               FilterEncoding encoding, std::optional<double> bits_per_key,
                               const InputFile* mapped, std::vector<FilterPartitionPlan>& plan) {
  std::vector<std::vector<BlockHandle>> groups;
  for (const FilterPartitionPlan& p : plan) groups.push_back(p.blocks);
  BLOOMCODEC_ASSIGN_OR_RETURN(PrefixedEntries e,
                              PassOverPrefixedKeys(sst, extractor, encoding, groups, true, mapped));
  plan.front().entries = e.entries;  // summed over the plan by the caller
  for (std::size_t j = 0; j < plan.size(); ++j) plan[j].hashes = std::move(e.filters[j]);
  ParallelFor(plan.size(), [&](std::size_t j) {
    plan[j].status = FinishFilterPartition(sst, encoding, bits_per_key, plan[j]);
  });
  return Status();
}

// The restart interval the index's top level was written with: its second restart's entry
// number; with one restart any interval of at least its entries lays it out the same.
Result<std::size_t> RestartIntervalOf(const SstReader& sst, const Block& block) {
  std::size_t entries = 0, interval = 0;
  BlockIterator it(block, KeyOrder::kBytewise, sst.index_value_encoding());
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  while (it.valid()) {
    if (block.num_restarts() > 1 && interval == 0 &&
        it.entry_position() == block.restart_point(1)) {
      interval = entries;
    }
    ++entries;
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  return interval != 0 ? interval : std::max<std::size_t>(entries, 1);
}

// The index's top level re-encoded with its partitions' new handles, refused when the old
// handles do not give back the old block (a layout RocksDB's builder did not write).
Result<ByteVector> ReencodeTopLevelIndex(const SstReader& sst,
                                         const std::vector<IndexPartitionWalk>& index,
                                         const std::vector<BlockHandle>& moved,
                                         std::size_t interval) {
  PartitionIndexEncoder same(interval, sst.index_value_is_delta_encoded());
  PartitionIndexEncoder fresh(interval, sst.index_value_is_delta_encoded());
  for (std::size_t m = 0; m < index.size(); ++m) {
    same.Add(index[m].top_key, index[m].handle);
    fresh.Add(index[m].top_key, moved[m]);
  }
  const ByteVector again = same.Finish();
  const ByteSpan old = sst.index_block().contents().bytes();
  if (!std::equal(again.begin(), again.end(), old.begin(), old.end())) {
    return Status::Unsupported(sst.source() +
                               ": the two-level index's top level is not laid out as RocksDB's "
                               "builder lays it out; its partitions are not moved");
  }
  return fresh.Finish();
}

// The compression of the table's index blocks (the first compressed one of the top level and
// the partitions; RocksDB compresses every index block with the table's compression and keeps
// the result when it saves more than 1/8, GoodCompressionRatio). nullopt: none is compressed.
std::optional<BlockCompression> IndexCompressionOf(const SstReader& sst,
                                                   const std::vector<IndexPartitionWalk>& index) {
  std::vector<BlockHandle> blocks{sst.index_handle()};
  for (const IndexPartitionWalk& p : index) blocks.push_back(p.handle);
  for (const BlockHandle& h : blocks) {
    const std::uint8_t type = sst.file()[h.offset + h.size];
    if (type == 0) continue;
    Result<BlockCompression> c = blocktable::CompressionOf(sst.BlockOptions().trailer, type,
                                                           sst.source(), h.offset + h.size, "");
    return c.ok() ? std::optional(*c) : std::nullopt;
  }
  return std::nullopt;
}

// The re-encoded top level as RocksDB stores it: compressed as the other index blocks are, when
// that saves more than 1/8 and this library compresses as RocksDB does (Snappy, LZ4, ZSTD with
// format_version >= 2's framing); otherwise uncompressed.
BlockHandle WriteIndexBlock(ByteSpan raw, std::optional<BlockCompression> compression,
                            const TrailerFormat& trailer, SstTailBytes& out) {
  ByteVector packed;
  if (compression && trailer.format_version >= 2 &&
      blocktable::CompressBlock(*compression, raw, packed) &&
      packed.size() < raw.size() - raw.size() / 8) {
    const std::uint8_t type = blocktable::TypeByte(*compression);
    BlockHandle h{out.at(), packed.size()};
    out.bytes.insert(out.bytes.end(), packed.begin(), packed.end());
    out.bytes.push_back(type);
    ByteWriter(out.bytes).PutLittleU32(
        blocktable::StoredBlockChecksum(trailer, packed, type, h.offset));
    return h;
  }
  return WriteSstBlock(raw, trailer, out);
}

// A block after the data blocks that the rewrite keeps: an index partition (its number), the
// index's top level, or a meta block under its metaindex name.
struct KeptSstBlock {
  BlockHandle old;
  enum class Kind { kIndexPartition, kTopLevelIndex, kMeta } kind;
  std::size_t partition = 0;
  std::string name;
};

bool DroppedMetaEntry(const SstReader& sst, const SstMetaindexEntry& e) {
  return e.key == kPropertiesBlockName || e.key == "rocksdb.stats" ||
         e.key == blocktable::kIndexMetaBlockName || e.key.starts_with("fullfilter.") ||
         e.key.starts_with("partitionedfilter.") || e.key.starts_with("filter.") ||
         (sst.filter() && e.key == sst.filter()->metaindex_key);
}

Result<std::vector<KeptSstBlock>> KeptBlocks(const SstReader& sst,
                                             const std::vector<IndexPartitionWalk>& index) {
  std::vector<KeptSstBlock> kept;
  for (std::size_t m = 0; m < index.size(); ++m) {
    kept.push_back({index[m].handle, KeptSstBlock::Kind::kIndexPartition, m, {}});
  }
  kept.push_back({sst.index_handle(), KeptSstBlock::Kind::kTopLevelIndex, 0, {}});
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    if (DroppedMetaEntry(sst, e)) continue;
    if (!e.handle) {
      return Status::Unsupported(sst.source() + ": metaindex entry " + PrintableName(e.key) +
                                 " is not a block handle; not rewritten");
    }
    kept.push_back({*e.handle, KeptSstBlock::Kind::kMeta, 0, e.key});
  }
  std::stable_sort(kept.begin(), kept.end(), [](const KeptSstBlock& a, const KeptSstBlock& b) {
    return a.old.offset < b.old.offset;
  });
  return kept;
}

// The new filter partitions and their top-level index; returns the filter's metaindex handle
// and size (rocksdb.filter.size).
std::pair<BlockHandle, std::uint64_t> WritePartitionedFilter(
    const SstReader& sst, const std::vector<FilterPartitionPlan>& plan, std::size_t interval,
    const TrailerFormat& trailer, SstTailBytes& out) {
  PartitionIndexEncoder top(interval, sst.index_value_is_delta_encoded());
  std::uint64_t size = 0;
  for (const FilterPartitionPlan& p : plan) {
    top.Add(p.key, WriteSstBlock(p.filter, trailer, out));
    size += p.filter.size();
  }
  const ByteVector top_bytes = top.Finish();
  size += top_bytes.size();
  return {WriteSstBlock(top_bytes, trailer, out), size};
}

struct TopLevelIndexSizes {
  std::uint64_t old_size = 0, new_size = 0;
};

// Everything after the new filter: the kept blocks in their old order, the index's top level
// re-encoded when its partitions moved, the properties, metaindex and footer.
Status WriteKeptBlocksAndFooter(const SstReader& sst, const std::vector<IndexPartitionWalk>& index,
                                std::size_t interval, std::map<std::string, BlockHandle>& meta,
                                PropertyChanges changes, SstTailBytes& out) {
  const TrailerFormat trailer = sst.BlockOptions().trailer;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<KeptSstBlock> kept, KeptBlocks(sst, index));
  std::vector<BlockHandle> moved(index.size());
  std::size_t partitions_written = 0;
  BlockHandle top;
  TopLevelIndexSizes sizes;
  for (const KeptSstBlock& k : kept) {
    if (k.kind == KeptSstBlock::Kind::kIndexPartition) {
      moved[k.partition] = CopySstBlock(sst.file(), k.old, trailer, out);
      ++partitions_written;
    } else if (k.kind == KeptSstBlock::Kind::kMeta) {
      meta[k.name] = CopySstBlock(sst.file(), k.old, trailer, out);
    } else if (partitions_written != index.size()) {
      return Status::Unsupported(sst.source() +
                                 ": the two-level index's top level precedes some of its "
                                 "partitions; not rewritten");
    } else if (out.at() == k.old.offset) {
      top = CopySstBlock(sst.file(), k.old, trailer, out);  // nothing moved
    } else {
      BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector bytes,
                                  ReencodeTopLevelIndex(sst, index, moved, interval));
      sizes.old_size = sst.index_block().contents().bytes().size();
      sizes.new_size = bytes.size();
      top = WriteIndexBlock(bytes, IndexCompressionOf(sst, index), trailer, out);
    }
  }
  if (sizes.new_size != sizes.old_size) {
    const std::uint64_t total = sst.properties()->Number("rocksdb.index.size").value_or(0);
    changes["rocksdb.index.size"] = VarintBytes(total - sizes.old_size + sizes.new_size);
    changes["rocksdb.top-level.index.size"] = VarintBytes(sizes.new_size);
  }
  WritePropertiesMetaindexAndFooter(sst, top, meta, changes, out);
  return Status();
}

}  // namespace

Result<ByteVector> WriteTwoLevelIndexTail(const SstReader& sst,
                                          const std::optional<ByteVector>& filter,
                                          FilterEncoding encoding, std::uint64_t filter_entries,
                                          std::uint64_t data_end) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<IndexPartitionWalk> index, WalkIndexPartitions(sst));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::size_t interval, RestartIntervalOf(sst, sst.index_block()));
  SstTailBytes out{data_end, {}};
  std::map<std::string, BlockHandle> meta;  // metaindex entries, sorted bytewise
  if (filter) {
    // RocksDB's builder writes the filter before the index (partitions, then the top level).
    meta["fullfilter." + std::string(kBuiltinFilterName)] =
        WriteSstBlock(*filter, sst.BlockOptions().trailer, out);
  }
  BLOOMCODEC_RETURN_IF_ERROR(
      WriteKeptBlocksAndFooter(sst, index, interval, meta,
                               FilterPropertyChanges(sst, filter.has_value(), encoding,
                                                     filter ? filter->size() : 0, filter_entries),
                               out));
  return std::move(out.bytes);
}

Result<SstFilterTail> RewritePartitionedFilterTail(const SstReader& sst,
                                                   std::optional<double> bits_per_key,
                                                   FilterEncoding encoding,
                                                   const std::optional<PrefixExtractor>& prefix,
                                                   const InputFile* mapped) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<IndexPartitionWalk> index, WalkIndexPartitions(sst));
  std::vector<FilterPartitionPlan> plan = PlanFilterPartitions(index);
  if (prefix) {
    BLOOMCODEC_RETURN_IF_ERROR(
        BuildPrefixedPartitions(sst, *prefix, encoding, bits_per_key, mapped, plan));
  } else {
    ParallelFor(plan.size(), [&](std::size_t j) {
      plan[j].status = BuildFilterPartition(sst, encoding, bits_per_key, mapped, plan[j]);
    });
  }
  SstFilterTail result;
  result.partitioned = true;
  std::uint64_t filter_entries = 0;
  for (const FilterPartitionPlan& p : plan) {
    BLOOMCODEC_RETURN_IF_ERROR(p.status);
    result.entries += p.entries;
    filter_entries += p.hashes.size();
    for (const BlockHandle& h : p.blocks) {
      result.kept_prefix = std::max(result.kept_prefix, h.offset + h.size + kBlockTrailerSize);
    }
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::size_t interval, RestartIntervalOf(sst, sst.index_block()));
  const TrailerFormat trailer = sst.BlockOptions().trailer;
  SstTailBytes out{result.kept_prefix, {}};
  std::map<std::string, BlockHandle> meta;  // metaindex entries, sorted bytewise
  std::uint64_t filter_size = 0;
  // RocksDB writes no filter for a table no key was added to (IsEmpty).
  const bool has_filter = bits_per_key.has_value() && filter_entries > 0;
  if (has_filter) {
    const auto [handle, size] = WritePartitionedFilter(sst, plan, interval, trailer, out);
    meta["partitionedfilter." + std::string(kBuiltinFilterName)] = handle;
    filter_size = size;
    result.filter_block_size = handle.offset + handle.size + kBlockTrailerSize - result.kept_prefix;
    result.filter_index_size = handle.size;
  }
  BLOOMCODEC_RETURN_IF_ERROR(WriteKeptBlocksAndFooter(
      sst, index, interval, meta,
      FilterPropertyChanges(sst, has_filter, encoding, filter_size, filter_entries), out));
  result.tail = std::move(out.bytes);
  return result;
}

}  // namespace bloomcodec::rocksdb
