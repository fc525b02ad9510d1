// `build --format pebble-table`: a Pebble row table of the given keys (see table_writer.h), and
// the block helpers the filter rewrite (table_rewrite.cc) shares.
#include "pebble/table/table_writer.h"

#include <string>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/trailer.h"
#include "codec/byte_writer.h"
#include "pebble/colblk/key_schema.h"

namespace bloomcodec::pebble {

using blocktable::BlockBuilder;
using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::ChecksumType;

namespace {

constexpr std::uint8_t kKindSet = 1;
constexpr std::uint32_t kDataRestartInterval = 16;  // Pebble's BlockRestartInterval

ByteVector Text(std::string_view s) { return ByteVector(s.begin(), s.end()); }

}  // namespace

BlockHandle AppendPebbleBlock(ByteSpan contents, ChecksumType checksum,
                              BlockCompression compression, ByteVector& out, std::uint64_t base) {
  ByteVector compressed;
  std::uint8_t type = 0;
  ByteSpan stored = contents;
  if (compression != BlockCompression::kNone &&
      blocktable::CompressBlock(compression, contents, compressed) &&
      compressed.size() < contents.size() - contents.size() / 8) {
    type = static_cast<std::uint8_t>(compression);
    stored = compressed;
  }
  const BlockHandle h{base + out.size(), stored.size()};
  out.insert(out.end(), stored.begin(), stored.end());
  out.push_back(type);
  ByteWriter(out).PutLittleU32(blocktable::BlockChecksum(checksum, stored, type));
  return h;
}

ByteVector EncodeNamedBlock(const std::map<std::string, ByteVector>& entries,
                            std::uint32_t restart_interval) {
  BlockBuilder b(static_cast<int>(restart_interval));
  for (const auto& [name, value] : entries) b.Add(AsBytes(name), value);
  const ByteSpan finished = b.Finish();
  return ByteVector(finished.begin(), finished.end());
}

Result<ByteVector> WritePebbleTable(const KeyList& keys, const PebbleWriteOptions& options) {
  if (options.version < kFirstRowFormat || options.version > kLastRowFormat) {
    return Status::InvalidArgument("pebble-table: a row table is Pebblev1..v4, not " +
                                   PebbleFormatName(options.version));
  }
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (colblk::CompareUserKeys(colblk::KeyComparer::kBytewise, keys[i - 1], keys[i]) >= 0) {
      return Status::InvalidArgument("pebble-table: the keys must be sorted and distinct");
    }
  }
  const ChecksumType checksum = ChecksumType::kCrc32c;
  ByteVector out;
  // Data blocks: SETs at sequence number 0; from Pebblev3 a SET's value is its prefix byte
  // (0: in place, no shared prefix with the previous SET, the keys being distinct).
  const ByteVector value = options.version >= kValuePrefixFormat ? ByteVector{0} : ByteVector{};
  BlockBuilder data(kDataRestartInterval);
  BlockBuilder index(1);
  ByteVector last;
  std::uint64_t blocks = 0, raw_keys = 0;
  auto flush = [&] {
    const BlockHandle h = AppendPebbleBlock(data.Finish(), checksum, BlockCompression::kNone, out);
    index.Add(last, blocktable::BlockHandleBytes(h));
    data.Reset();
    ++blocks;
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    last.assign(keys[i].begin(), keys[i].end());
    ByteWriter(last).PutLittleU64(kKindSet);  // sequence 0, kind SET
    data.Add(last, value);
    raw_keys += last.size();
    if (data.SizeEstimate() >= options.block_size) flush();
  }
  // No key: Pebble still writes one empty data block, indexed by an empty user key with the
  // separator trailer (FORMAT.md §9).
  if (keys.size() == 0) {
    last.clear();
    ByteWriter(last).PutLittleU64(((std::uint64_t{1} << 56) - 1) << 8 | 17);
  }
  if (!data.empty() || blocks == 0) flush();
  const std::uint64_t data_size = out.size();

  KeyList prefixes;  // Split of leveldb.BytewiseComparator: the whole key
  for (std::size_t i = 0; i < keys.size(); ++i) prefixes.Add(keys[i]);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> filter,
                              BuildBloom(options.filter, prefixes));
  const ByteVector filter_bytes = filter ? *filter : ByteVector();
  std::map<std::string, ByteVector> meta;
  meta[std::string(kBloomFilterBlockName)] = blocktable::BlockHandleBytes(
      AppendPebbleBlock(filter_bytes, checksum, BlockCompression::kNone, out));
  const ByteSpan index_bytes = index.Finish();
  const std::uint64_t index_size = index_bytes.size() + blocktable::kBlockTrailerSize;
  const BlockHandle index_handle =
      AppendPebbleBlock(index_bytes, checksum, BlockCompression::kNone, out);

  std::map<std::string, ByteVector> props;
  props["rocksdb.block.based.table.index.type"] = {0, 0, 0, 0};
  props["rocksdb.comparator"] = Text("leveldb.BytewiseComparator");
  props["rocksdb.compression"] = Text("NoCompression");
  props["rocksdb.data.size"] = VarintBytes(data_size);
  props["rocksdb.deleted.keys"] = VarintBytes(0);
  props["rocksdb.filter.policy"] = Text(kBloomFamily);
  props["rocksdb.filter.size"] = VarintBytes(filter_bytes.size());
  props["rocksdb.index.size"] = VarintBytes(index_size);
  props["rocksdb.merge.operands"] = VarintBytes(0);
  props["rocksdb.merge.operator"] = Text("pebble.concatenate");
  props["rocksdb.num.data.blocks"] = VarintBytes(blocks);
  props["rocksdb.num.entries"] = VarintBytes(keys.size());
  props["rocksdb.num.range-deletions"] = VarintBytes(0);
  props["rocksdb.property.collectors"] = Text("[]");
  props["rocksdb.raw.key.size"] = VarintBytes(raw_keys);
  props["rocksdb.raw.value.size"] = VarintBytes(0);
  meta["rocksdb.properties"] = blocktable::BlockHandleBytes(AppendPebbleBlock(
      EncodeNamedBlock(props, kPropertiesRestartInterval), checksum, BlockCompression::kNone, out));
  PebbleFooter footer;
  footer.version = options.version;
  footer.footer.checksum = checksum;
  footer.footer.index_handle = index_handle;
  footer.footer.metaindex_handle = AppendPebbleBlock(
      EncodeNamedBlock(meta, kMetaindexRestartInterval), checksum, BlockCompression::kNone, out);
  AppendPebbleFooter(footer, out);
  return out;
}

}  // namespace bloomcodec::pebble
