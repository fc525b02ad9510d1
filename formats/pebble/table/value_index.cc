// The value index of Pebblev3+ tables: read and re-encoded (see value_index.h).
#include "pebble/table/value_index.h"

#include <algorithm>
#include <string>

#include "blocktable/block.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::pebble {

using blocktable::BlockHandle;

namespace {

// lenLittleEndian: the bytes an unsigned integer needs, at least 1.
std::uint8_t ValueIndexWidth(std::uint64_t v) {
  std::uint8_t n = 1;
  while (n < 8 && (v >> (8 * n)) != 0) ++n;
  return n;
}

std::uint64_t ValueIndexField(ByteSpan b, std::size_t at, std::uint8_t width) {
  std::uint64_t v = 0;
  for (std::uint8_t i = 0; i < width; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

ByteVector EncodeValueIndex(const std::vector<BlockHandle>& blocks, std::uint8_t widths[3]) {
  std::uint64_t largest_length = 0;
  for (const BlockHandle& h : blocks) largest_length = std::max(largest_length, h.size);
  widths[0] = ValueIndexWidth(blocks.empty() ? 0 : blocks.size() - 1);
  widths[1] = ValueIndexWidth(blocks.empty() ? 0 : blocks.back().offset);
  widths[2] = ValueIndexWidth(largest_length);
  ByteVector out;
  auto put = [&](std::uint64_t v, std::uint8_t w) {
    for (std::uint8_t i = 0; i < w; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    put(i, widths[0]);
    put(blocks[i].offset, widths[1]);
    put(blocks[i].size, widths[2]);
  }
  return out;
}

}  // namespace

Result<ValueIndex> ReadValueIndex(const PebbleTable& t, const rocksdb::SstMetaindexEntry& e) {
  ValueIndex vi;
  const ByteSpan widths = e.value.last(3);
  std::size_t row = 0;
  for (int i = 0; i < 3; ++i) {
    if (widths[i] == 0 || widths[i] > 8) {
      return Status::Corrupt(t.source(), e.value_at + e.value.size() - 3 + i,
                             "a value index width from 1 to 8", std::to_string(widths[i]));
    }
    vi.widths[i] = widths[i];
    row += widths[i];
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(blocktable::BlockContents c,
                              t.ReadContents(*e.handle, "value index"));
  const ByteSpan b = c.bytes();
  if (b.size() % row != 0) {
    return Status::Corrupt(t.source(), e.handle->offset,
                           "a value index of whole " + std::to_string(row) + "-byte rows",
                           std::to_string(b.size()) + " bytes");
  }
  for (std::size_t at = 0; at < b.size(); at += row) {
    const std::uint64_t n = ValueIndexField(b, at, vi.widths[0]);
    const BlockHandle h{ValueIndexField(b, at + vi.widths[0], vi.widths[1]),
                        ValueIndexField(b, at + vi.widths[0] + vi.widths[1], vi.widths[2])};
    if (n != vi.blocks.size()) {
      return Status::Corrupt(t.source(), e.handle->offset + at,
                             "value block number " + std::to_string(vi.blocks.size()),
                             std::to_string(n));
    }
    BLOOMCODEC_RETURN_IF_ERROR(blocktable::CheckHandleInFile(h, t.file().size(), t.source(),
                                                             e.handle->offset + at, "value block"));
    vi.blocks.push_back(h);
  }
  return vi;
}

Status CollectMetaindexBlocks(const PebbleTable& t, std::vector<MovedBlock>& moved) {
  for (const rocksdb::SstMetaindexEntry& e : t.metaindex()) {
    if (e.key == "rocksdb.properties" || e.key.starts_with("fullfilter.")) continue;
    if (!e.handle) {
      return Status::Unsupported(t.source() + ": metaindex entry " + e.key +
                                 " is not a block handle; not rewritten");
    }
    if (e.key == kValueIndexBlockName) {
      BLOOMCODEC_ASSIGN_OR_RETURN(ValueIndex vi, ReadValueIndex(t, e));
      for (const BlockHandle& h : vi.blocks) moved.push_back({Moved::kValueBlock, h, {}});
      moved.push_back({Moved::kValueIndex, *e.handle, e.key});
      continue;
    }
    moved.push_back({Moved::kCopied, *e.handle, e.key});
  }
  return Status();
}

AppendedValueIndex AppendValueIndex(const std::vector<BlockHandle>& blocks,
                                    blocktable::ChecksumType checksum, ByteVector& out,
                                    std::uint64_t base) {
  std::uint8_t widths[3];
  const ByteVector index = EncodeValueIndex(blocks, widths);
  AppendedValueIndex appended;
  appended.size = index.size();
  // Pebble never compresses the value index; its metaindex value is the handle, then the widths.
  appended.metaindex_value = blocktable::BlockHandleBytes(
      AppendPebbleBlock(index, checksum, blocktable::BlockCompression::kNone, out, base));
  appended.metaindex_value.insert(appended.metaindex_value.end(), widths, widths + 3);
  return appended;
}

}  // namespace bloomcodec::pebble
