#include "pebble/colblk/index_block.h"

#include <string>

namespace bloomcodec::pebble::colblk {

namespace {

constexpr std::string_view kIndexColumnNames[] = {"separators", "offsets", "lengths",
                                                  "block properties"};

// The block-property encoding of one index entry: (short ID, uvarint length > 0, bytes)*,
// short IDs strictly ascending (Pebble's blockPropertiesEncoder / decoder). Empty is fine.
bool ValidBlockProperties(ByteSpan p, std::string& why) {
  int previous = -1;
  std::size_t i = 0;
  while (i < p.size()) {
    const int id = p[i++];
    if (id <= previous) {
      why = "short ID " + std::to_string(id) + " after " + std::to_string(previous);
      return false;
    }
    previous = id;
    std::uint64_t length = 0;
    int shift = 0;
    bool done = false;
    while (i < p.size() && shift < 64) {
      const std::uint8_t b = p[i++];
      length |= std::uint64_t{b & 0x7fu} << shift;
      shift += 7;
      if ((b & 0x80) == 0) {
        done = true;
        break;
      }
    }
    if (!done || length == 0 || length > p.size() - i) {
      why = "a bad length for short ID " + std::to_string(id);
      return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

Result<IndexBlock> IndexBlock::Decode(ByteSpan block, const BlockPlace& place) {
  IndexBlock b;
  BLOOMCODEC_ASSIGN_OR_RETURN(b.layout_, BlockLayout::Decode(block, 0, place));
  const std::uint32_t n = b.layout_.rows();
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c0,
                              b.layout_.Column(0, DataType::kBytes, kIndexColumnNames[0]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.separators_, DecodeRawBytesColumn(c0, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c1,
                              b.layout_.Column(1, DataType::kUint, kIndexColumnNames[1]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.offsets_, DecodeUintColumn(c1, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c2,
                              b.layout_.Column(2, DataType::kUint, kIndexColumnNames[2]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.lengths_, DecodeUintColumn(c2, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c3,
                              b.layout_.Column(3, DataType::kBytes, kIndexColumnNames[3]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.properties_, DecodeRawBytesColumn(c3, n));
  return b;
}

Status VerifyIndexBlock(const IndexBlock& block, KeyComparer comparer) {
  BLOOMCODEC_RETURN_IF_ERROR(block.layout().VerifyShape(kIndexColumns));
  for (std::uint32_t row = 0; row < block.rows(); ++row) {
    if (row > 0 && comparer != KeyComparer::kUnknown &&
        CompareUserKeys(comparer, block.separator(row), block.separator(row - 1)) < 0) {
      const ColumnBytes c =
          block.layout().Column(0, DataType::kBytes, kIndexColumnNames[0]).value();
      return c.Error(c.start,
                     "separators in non-decreasing order (row " + std::to_string(row) + ")",
                     "a separator below the one of row " + std::to_string(row - 1));
    }
    // Blocks follow each other in the file, each with its 5-byte trailer. This also bounds the
    // work: a block cannot claim more entries than its offsets can tell apart.
    std::uint64_t previous_end = 0;
    if (row > 0 &&
        (__builtin_add_overflow(block.offset(row - 1), block.length(row - 1), &previous_end) ||
         __builtin_add_overflow(previous_end, 5, &previous_end) ||
         block.offset(row) < previous_end)) {
      const ColumnBytes c = block.layout().Column(1, DataType::kUint, kIndexColumnNames[1]).value();
      return c.Error(c.start,
                     "block offsets at or after the previous block's end and trailer (row " +
                         std::to_string(row) + ")",
                     std::to_string(block.offset(row)) + " after " +
                         std::to_string(block.offset(row - 1)) + " + " +
                         std::to_string(block.length(row - 1)) + " + 5");
    }
    std::string why;
    if (!ValidBlockProperties(block.block_properties(row), why)) {
      const ColumnBytes c =
          block.layout().Column(3, DataType::kBytes, kIndexColumnNames[3]).value();
      return c.Error(c.start,
                     "block properties of (short ID, uvarint length > 0, value) with ascending "
                     "short IDs (row " +
                         std::to_string(row) + ")",
                     why);
    }
  }
  return Status();
}

void IndexBlockWriter::AddBlockHandle(ByteSpan separator, std::uint64_t offset,
                                      std::uint64_t length, ByteSpan block_properties) {
  separators_.Put(separator);
  offsets_.Set(rows_, offset);
  lengths_.Set(rows_, length);
  properties_.Put(block_properties);
  ++rows_;
}

std::uint32_t IndexBlockWriter::Size(std::uint32_t rows) const {
  std::uint32_t off = HeaderSize(kIndexColumns, 0);
  off = separators_.Size(rows, off);
  off = offsets_.Size(rows, off);
  off = lengths_.Size(rows, off);
  off = properties_.Size(rows, off);
  return off + 1;
}

Result<ByteVector> IndexBlockWriter::Finish(std::uint32_t rows) const {
  if (rows > rows_ || rows + 1 < rows_) {
    return Status::InvalidArgument("pebble index block: Finish takes the rows added or one fewer");
  }
  ByteVector out;
  BlockWriter w(out, Size(rows), kIndexColumns, rows, 0);
  std::uint8_t* buf = w.data();
  w.EndColumn(separators_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(offsets_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
  w.EndColumn(lengths_.Finish(rows, w.BeginColumn(DataType::kUint), buf));
  w.EndColumn(properties_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  if (!w.Finish()) return Status::Internal("pebble index block: column sizes disagree");
  return out;
}

void IndexBlockWriter::Reset() {
  separators_.Reset();
  offsets_.Reset();
  lengths_.Reset();
  properties_.Reset();
  rows_ = 0;
}

}  // namespace bloomcodec::pebble::colblk
