#include "leveldb/table/table_writer.h"

#include <snappy.h>

#include <algorithm>
#include <string>

#include "blocktable/crc32c.h"
#include "blocktable/footer.h"
#include "blocktable/stream.h"
#include "codec/byte_writer.h"
#include "codec/parallel.h"
#include "leveldb/table/rebuild_tap.h"

namespace bloomcodec::leveldb {

using blocktable::AppendBlockHandle;
using blocktable::AppendFooter;
using blocktable::Block;
using blocktable::BlockBuilder;
using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::BlockTrailerCrc;
using blocktable::CompareKeys;
using blocktable::Footer;
using blocktable::kBlockTrailerSize;
using blocktable::KeyOrder;
using blocktable::TypeByte;

namespace {

constexpr std::uint64_t kSeekTag = kMaxSequenceNumber << 8 | 1;  // (kMaxSequenceNumber, value)

void BytewiseSeparator(ByteVector& start, ByteSpan limit) {
  const std::size_t min_length = std::min(start.size(), limit.size());
  std::size_t diff = 0;
  while (diff < min_length && start[diff] == limit[diff]) ++diff;
  if (diff >= min_length) return;  // one is a prefix of the other: keep start
  const std::uint8_t byte = start[diff];
  if (byte < 0xff && byte + 1 < limit[diff]) {
    start[diff] = static_cast<std::uint8_t>(byte + 1);
    start.resize(diff + 1);
  }
}

void BytewiseSuccessor(ByteVector& key) {
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != 0xff) {
      key[i] = static_cast<std::uint8_t>(key[i] + 1);
      key.resize(i + 1);
      return;
    }
  }
  // All 0xff: LevelDB leaves the key as it is.
}

// The tail of the internal-key versions: keep the shortened user key only if it got shorter AND
// larger than the original user key, then give it the tag that sorts first for that user key.
void AdoptIfShorter(ByteVector& key, ByteSpan user, ByteVector& shortened) {
  if (shortened.size() < user.size() && CompareKeys(KeyOrder::kBytewise, user, shortened) < 0) {
    ByteWriter(shortened).PutLittleU64(kSeekTag);
    key.swap(shortened);
  }
}

}  // namespace

void ShortestSeparator(KeyOrder order, ByteVector& start, ByteSpan limit) {
  if (order == KeyOrder::kBytewise) return BytewiseSeparator(start, limit);
  const ByteSpan user_start = UserKeyOf(start);
  ByteVector tmp(user_start.begin(), user_start.end());
  BytewiseSeparator(tmp, UserKeyOf(limit));
  AdoptIfShorter(start, UserKeyOf(start), tmp);
}

void ShortSuccessor(KeyOrder order, ByteVector& key) {
  if (order == KeyOrder::kBytewise) return BytewiseSuccessor(key);
  const ByteSpan user = UserKeyOf(key);
  ByteVector tmp(user.begin(), user.end());
  BytewiseSuccessor(tmp);
  AdoptIfShorter(key, UserKeyOf(key), tmp);
}

TableWriter::TableWriter(TableWriteOptions options)
    : options_(std::move(options)),
      order_(options_.key_kind == KeyKind::kUser ? KeyOrder::kInternal : KeyOrder::kBytewise),
      data_block_(options_.restart_interval),
      index_block_(1),  // LevelDB's index blocks restart at every entry
      // The metaindex block uses the table's restart interval; it has at most one entry here.
      filter_(options_.filter ? std::optional<FilterBlockBuilder>(std::in_place, *options_.filter)
                              : std::nullopt) {
  if (filter_) filter_->StartBlock(0);
}

Status TableWriter::Add(ByteSpan key, ByteSpan value) {
  if (finished_) return Status::InvalidArgument("TableWriter::Add after Finish");
  if (order_ == KeyOrder::kInternal && (key.size() < 8 || (TagOf(key) & 0xff) > 1)) {
    return Status::InvalidArgument("key " + ToHex(key) +
                                   " is not an internal key (user key + 8-byte tag of type 0/1)");
  }
  if (num_entries_ > 0 && CompareKeys(order_, last_key_, key) >= 0) {
    return Status::InvalidArgument("keys must increase strictly: " + ToHex(key) +
                                   " does not follow " + ToHex(last_key_));
  }
  if (key.size() > 0xffffffffu || value.size() > 0xffffffffu) {
    return Status::InvalidArgument("keys and values must be shorter than 4 GiB");
  }
  if (pending_index_entry_) {
    if (options_.shorten_index_keys) ShortestSeparator(order_, last_key_, key);
    separator_.clear();
    AppendBlockHandle(pending_handle_, separator_);
    index_block_.Add(last_key_, separator_);
    pending_index_entry_ = false;
  }
  if (filter_) {
    // Inside a database the policy is wrapped by InternalFilterPolicy: it hashes user keys.
    filter_->AddKey(order_ == KeyOrder::kInternal ? UserKeyOf(key) : key);
  }
  last_key_.assign(key.begin(), key.end());
  ++num_entries_;
  data_block_.Add(key, value);
  if (data_block_.SizeEstimate() >= options_.block_size) FlushDataBlock();
  return Status();
}

void TableWriter::FlushDataBlock() {
  if (data_block_.empty()) return;
  pending_handle_ = WriteBlock(data_block_);
  pending_index_entry_ = true;
  if (filter_) filter_->StartBlock(out_.size());
}

BlockHandle TableWriter::WriteBlock(BlockBuilder& block) {
  const ByteSpan raw = block.Finish();
  BlockHandle handle;
  // LevelDB (and Mojang's fork, for its zlib types) keeps the compressed form only when it
  // saves at least 1/8 of the raw size.
  if (options_.compression != BlockCompression::kNone &&
      blocktable::CompressBlock(options_.compression, raw, compressed_) &&
      compressed_.size() < raw.size() - raw.size() / 8) {
    handle = WriteRawBlock(compressed_, options_.compression);
    block.Reset();
    return handle;
  }
  handle = WriteRawBlock(raw, BlockCompression::kNone);
  block.Reset();
  return handle;
}

BlockHandle TableWriter::WriteRawBlock(ByteSpan contents, BlockCompression type) {
  BlockHandle handle{out_.size(), contents.size()};
  ByteWriter w(out_);
  w.PutBytes(contents);
  const auto type_byte = TypeByte(type);
  w.PutU8(type_byte);
  w.PutLittleU32(BlockTrailerCrc(contents, type_byte));
  return handle;
}

Result<ByteVector> TableWriter::Finish() {
  if (finished_) return Status::InvalidArgument("TableWriter::Finish called twice");
  FlushDataBlock();
  finished_ = true;
  BlockHandle filter_handle;
  if (filter_) {
    const ByteVector block = filter_->Finish();
    filter_handle = WriteRawBlock(block, BlockCompression::kNone);  // never compressed
  }
  BlockBuilder metaindex(options_.restart_interval);
  if (filter_) {
    ByteVector value;
    AppendBlockHandle(filter_handle, value);
    metaindex.Add(AsBytes("filter." + std::string(filter_->policy().name())), value);
  }
  Footer footer;
  footer.metaindex_handle = WriteBlock(metaindex);
  if (pending_index_entry_) {
    if (options_.shorten_index_keys) ShortSuccessor(order_, last_key_);
    separator_.clear();
    AppendBlockHandle(pending_handle_, separator_);
    index_block_.Add(last_key_, separator_);
    pending_index_entry_ = false;
  }
  footer.index_handle = WriteBlock(index_block_);
  AppendFooter(footer, out_);
  return std::move(out_);
}

Result<ByteVector> BuildCheckedFilterBlock(const std::string& source, const BloomPolicy& policy,
                                           const BlockHashes& seen, std::uint64_t data_end) {
  // TableBuilder announces each block's offset before its keys, and the end after the last:
  // announcing a group's offset is the same (the filters emitted depend on its window only).
  FilterBlockBuilder builder(policy);
  builder.StartBlock(0);
  std::size_t begin = 0;
  for (std::size_t g = 0; g < seen.offsets.size(); ++g) {
    builder.StartBlock(seen.offsets[g]);
    for (std::size_t i = begin; i < seen.ends[g]; ++i) builder.AddHash(seen.hashes[i]);
    begin = seen.ends[g];
  }
  builder.StartBlock(data_end);
  ByteVector block = builder.Finish();
  // Every key's hash asked of it, as LevelDB's reader asks. goleveldb's probe differs from
  // LevelDB's only for filters over 512 MiB, far above one 2 KiB range's filter.
  const FilterBlockReader filters(block, policy.flavor, policy.goleveldb_name);
  begin = 0;
  for (std::size_t g = 0; g < seen.offsets.size(); ++g) {
    const FilterBlockReader::Choice c = filters.FilterFor(seen.offsets[g]);
    for (std::size_t i = begin; i < seen.ends[g]; ++i) {
      if (c.kind == FilterBlockReader::Choice::Kind::kAlwaysMatch) break;
      if (c.kind == FilterBlockReader::Choice::Kind::kNeverMatch ||
          !BloomHashMayMatch(seen.hashes[i], c.filter)) {
        return Status::Internal(source +
                                ": the rebuilt filter answers \"not there\" for a key of the "
                                "data block at offset " +
                                std::to_string(seen.offsets[g]));
      }
    }
    begin = seen.ends[g];
  }
  return block;
}

namespace {

// The table's compression (the first one any of its blocks uses): the new metaindex block gets
// the same choice.
BlockCompression TableCompression(const TableReader& reader) {
  BlockCompression compression = reader.index_block().contents().compression();
  if (compression == BlockCompression::kNone) {
    compression = reader.metaindex_block().contents().compression();
  }
  return compression;
}

// The filter block (if any), metaindex, index (copied) and footer after the data blocks.
ByteVector WriteTableTail(const TableReader& reader, const std::optional<BloomPolicy>& policy,
                          std::optional<ByteSpan> filter_block, std::uint64_t data_end,
                          BlockCompression compression) {
  ByteVector out;
  ByteWriter w(out);
  BlockHandle filter_handle;
  if (filter_block) {
    filter_handle = {data_end, filter_block->size()};
    w.PutBytes(*filter_block);
    w.PutU8(0);
    w.PutLittleU32(BlockTrailerCrc(*filter_block, 0));
  }
  // The metaindex and index blocks go through the compression choice like TableBuilder's.
  const auto write_block = [&](BlockBuilder& b) {
    const ByteSpan raw = b.Finish();
    ByteVector compressed;
    BlockCompression type = BlockCompression::kNone;
    ByteSpan contents = raw;
    if (compression != BlockCompression::kNone &&
        blocktable::CompressBlock(compression, raw, compressed) &&
        compressed.size() < raw.size() - raw.size() / 8) {
      contents = compressed;
      type = compression;
    }
    BlockHandle h{data_end + out.size(), contents.size()};
    w.PutBytes(contents);
    w.PutU8(TypeByte(type));
    w.PutLittleU32(BlockTrailerCrc(contents, TypeByte(type)));
    return h;
  };
  BlockBuilder metaindex(16);
  if (filter_block) {
    ByteVector value;
    AppendBlockHandle(filter_handle, value);
    metaindex.Add(AsBytes("filter." + std::string(policy->name())), value);
  }
  Footer footer;
  footer.metaindex_handle = write_block(metaindex);
  // The index block is copied as stored (same handles: the data blocks did not move).
  const BlockHandle old_index = reader.footer().index_handle;
  footer.index_handle = {data_end + out.size(), old_index.size};
  w.PutBytes(reader.file().subspan(old_index.offset, old_index.size + kBlockTrailerSize));
  AppendFooter(footer, out);
  return out;
}

// The keys of a run of data blocks, read (checksums, decompression) and hashed on one of the
// pool's workers (codec/parallel.h); merged in file order.
struct HashedRun {
  Status status;
  std::vector<std::uint32_t> hashes;
  std::vector<std::size_t> counts;  // per block
  std::uint64_t entries = 0;
  BlockCompression compression = BlockCompression::kNone;  // the run's first compressed block's
};
constexpr std::size_t kBlocksPerRun = 128;

Status HashRun(const TableReader& reader, std::span<const BlockHandle> blocks,
               const std::optional<BloomPolicy>& policy, const InputFile* mapped, HashedRun& out) {
  const bool user = reader.key_kind() == KeyKind::kUser;
  blocktable::BlockRunPages pages(mapped, blocks);  // back to back (DataBlocksOf)
  for (const BlockHandle& handle : blocks) {
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, reader.ReadDataBlock(handle));
    pages.Read(handle);
    if (out.compression == BlockCompression::kNone)
      out.compression = block.contents().compression();
    BlockIterator it(block, reader.key_order());
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    const std::size_t before = out.hashes.size();
    while (it.valid()) {
      ++out.entries;
      if (policy)
        out.hashes.push_back(BloomHash(user ? UserKeyOf(it.key()) : it.key(), policy->flavor));
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    out.counts.push_back(out.hashes.size() - before);
  }
  return Status();
}

// The data blocks in index order, back to back from offset 0.
Result<std::vector<BlockHandle>> DataBlocksOf(const TableReader& reader) {
  std::vector<BlockHandle> blocks;
  std::uint64_t data_end = 0;
  BLOOMCODEC_RETURN_IF_ERROR(
      reader.ForEachDataBlock([&](ByteSpan, const BlockHandle& handle) -> Status {
        if (handle.offset != data_end) {
          return Status::Corrupt(reader.source(), handle.offset,
                                 "data blocks back to back from offset 0 (next at " +
                                     std::to_string(data_end) + ")");
        }
        blocks.push_back(handle);
        data_end = handle.offset + handle.size + kBlockTrailerSize;
        return Status();
      }));
  return blocks;
}

}  // namespace

Result<TableFilterTail> RewriteTableFilterTail(const TableReader& reader,
                                               const std::optional<BloomPolicy>& policy,
                                               const InputFile* mapped,
                                               const RebuiltFilterBlock* prebuilt) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<BlockHandle> blocks, DataBlocksOf(reader));
  const std::uint64_t blocks_end =
      blocks.empty() ? 0 : blocks.back().offset + blocks.back().size + kBlockTrailerSize;
  if (prebuilt && policy && prebuilt->Fits(*policy, reader.file().size(), blocks_end)) {
    // The tap's verify read every data block: the compression the data blocks add to the
    // index's and metaindex's choice is the one it saw first.
    BlockCompression compression = TableCompression(reader);
    if (compression == BlockCompression::kNone) compression = prebuilt->compression;
    TableFilterTail out;
    out.kept_prefix = blocks_end;
    out.entries = prebuilt->entries;
    out.filter_block_size = prebuilt->filter.size();
    out.tail = WriteTableTail(reader, policy, ByteSpan(prebuilt->filter), blocks_end, compression);
    return out;
  }
  std::vector<HashedRun> runs((blocks.size() + kBlocksPerRun - 1) / kBlocksPerRun);
  ParallelFor(runs.size(), [&](std::size_t r) {
    const std::size_t from = r * kBlocksPerRun;
    const std::size_t n = std::min(kBlocksPerRun, blocks.size() - from);
    runs[r].status = HashRun(reader, std::span(blocks).subspan(from, n), policy, mapped, runs[r]);
  });
  // In file order: the first error, the compression, the keys' hashes by block.
  BlockCompression compression = TableCompression(reader);
  BlockHashes seen;
  std::uint64_t entries = 0;
  std::size_t b = 0;
  for (HashedRun& run : runs) {
    BLOOMCODEC_RETURN_IF_ERROR(run.status);
    if (compression == BlockCompression::kNone) compression = run.compression;
    entries += run.entries;
    std::size_t at = 0;
    for (const std::size_t count : run.counts) {
      at += count;
      seen.offsets.push_back(blocks[b++].offset);
      seen.ends.push_back(seen.hashes.size() + at);
    }
    seen.hashes.insert(seen.hashes.end(), run.hashes.begin(), run.hashes.end());
    run.hashes = {};
  }
  std::optional<ByteVector> block;
  if (policy) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        block, BuildCheckedFilterBlock(reader.source(), *policy, seen, blocks_end));
  }
  TableFilterTail out;
  out.kept_prefix = blocks_end;
  out.entries = entries;
  out.filter_block_size = block ? block->size() : 0;
  out.tail = WriteTableTail(reader, policy, block ? std::optional<ByteSpan>(*block) : std::nullopt,
                            blocks_end, compression);
  return out;
}

Result<ByteVector> RewriteTableFilter(const TableReader& reader,
                                      const std::optional<BloomPolicy>& policy) {
  BLOOMCODEC_ASSIGN_OR_RETURN(TableFilterTail t, RewriteTableFilterTail(reader, policy));
  ByteVector out(reader.file().begin(), reader.file().begin() + t.kept_prefix);
  out.insert(out.end(), t.tail.begin(), t.tail.end());
  return out;
}

}  // namespace bloomcodec::leveldb
