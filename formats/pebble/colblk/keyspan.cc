#include "pebble/colblk/keyspan.h"

#include <algorithm>
#include <string>

namespace bloomcodec::pebble::colblk {

namespace {

constexpr std::string_view kKeyspanColumnNames[] = {"boundary keys", "boundary start indices",
                                                    "trailers", "suffixes", "values"};

// RANGEDEL, RANGEKEYDEL, RANGEKEYUNSET, RANGEKEYSET (internal/base/internal.go).
bool IsSpanKind(std::uint8_t kind) { return kind == 15 || kind == 19 || kind == 20 || kind == 21; }

}  // namespace

Result<KeyspanBlock> KeyspanBlock::Decode(ByteSpan block, const BlockPlace& place) {
  KeyspanBlock b;
  BLOOMCODEC_ASSIGN_OR_RETURN(b.layout_, BlockLayout::Decode(block, kKeyspanHeaderSize, place));
  b.boundaries_ = LoadLE32(block.data());
  const std::uint32_t n = b.layout_.rows();
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c0,
                              b.layout_.Column(0, DataType::kBytes, kKeyspanColumnNames[0]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.keys_, DecodeRawBytesColumn(c0, b.boundaries_));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c1,
                              b.layout_.Column(1, DataType::kUint, kKeyspanColumnNames[1]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.starts_, DecodeUintColumn(c1, b.boundaries_));
  BLOOMCODEC_RETURN_IF_ERROR(b.CheckStarts(c1));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c2,
                              b.layout_.Column(2, DataType::kUint, kKeyspanColumnNames[2]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.trailers_, DecodeUintColumn(c2, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c3,
                              b.layout_.Column(3, DataType::kBytes, kKeyspanColumnNames[3]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.suffixes_, DecodeRawBytesColumn(c3, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c4,
                              b.layout_.Column(4, DataType::kBytes, kKeyspanColumnNames[4]));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.values_, DecodeRawBytesColumn(c4, n));
  return b;
}

Status KeyspanBlock::CheckStarts(const ColumnBytes& column) const {
  if (boundaries_ == 0) return Status();
  const std::uint64_t rows = layout_.rows();
  // A constant column needs one look; a stored one is bounded by its bytes.
  const std::uint32_t last = starts_.width() == 0 ? 1 : boundaries_;
  std::uint64_t previous = 0;
  for (std::uint32_t i = 0; i < last; ++i) {
    const std::uint64_t v = starts_.At(i);
    if (v > rows || v < previous) {
      return column.Error(column.start,
                          "boundary start indices that do not decrease and stay at most the " +
                              std::to_string(rows) + " keys (index " + std::to_string(i) + ")",
                          std::to_string(v) + (v < previous ? " after " + std::to_string(previous)
                                                            : std::string()));
    }
    previous = v;
  }
  return Status();
}

Status VerifyKeyspanBlock(const KeyspanBlock& block, KeyComparer comparer) {
  BLOOMCODEC_RETURN_IF_ERROR(block.layout().VerifyShape(kKeyspanColumns));
  const std::uint32_t n = block.boundary_count();
  auto column = [&](int i, DataType t) {
    return block.layout().Column(i, t, kKeyspanColumnNames[i]).value();
  };
  if ((n == 0 && block.rows() != 0) || n == 1 ||
      (n > 0 && (block.boundary_start(0) != 0 || block.boundary_start(n - 1) != block.rows()))) {
    const ColumnBytes c = column(1, DataType::kUint);
    return c.Error(c.start,
                   "boundary start indices from 0 to the key count " +
                       std::to_string(block.rows()) + " over at least two boundaries",
                   std::to_string(n) + " boundaries");
  }
  for (std::uint32_t i = 1; i < n; ++i) {
    if (comparer != KeyComparer::kUnknown &&
        CompareUserKeys(comparer, block.boundary_key(i), block.boundary_key(i - 1)) <= 0) {
      const ColumnBytes c = column(0, DataType::kBytes);
      return c.Error(c.start,
                     "boundary keys in strictly increasing order (boundary " + std::to_string(i) +
                         ")",
                     "a key not after boundary " + std::to_string(i - 1));
    }
  }
  // Equal trailers (a width-0 column) need one look: a block's rows are not bounded by its size.
  const std::uint32_t kinds =
      block.trailer_width() == 0 ? std::min(block.rows(), 1u) : block.rows();
  for (std::uint32_t k = 0; k < kinds; ++k) {
    const std::uint8_t kind = static_cast<std::uint8_t>(block.trailer(k));
    if (!IsSpanKind(kind)) {
      const ColumnBytes c = column(2, DataType::kUint);
      return c.Error(c.start,
                     "range deletion or range key kinds (15, 19, 20, 21) (key " +
                         std::to_string(k) + ")",
                     "kind " + std::to_string(kind));
    }
  }
  return Status();
}

void KeyspanBlockWriter::AddSpan(ByteSpan start, ByteSpan end,
                                 const std::vector<KeyspanKey>& keys) {
  const std::uint32_t boundaries = boundary_keys_.rows();
  if (!any_ || !EqualUserKeys(comparer_, boundary_keys_.Get(boundaries - 1), start)) {
    boundary_starts_.Set(boundary_keys_.rows(), keys_);
    boundary_keys_.Put(start);
  }
  boundary_starts_.Set(boundary_keys_.rows(), keys_ + keys.size());
  boundary_keys_.Put(end);
  any_ = true;
  for (const KeyspanKey& k : keys) {
    trailers_.Set(keys_, k.trailer);
    suffixes_.Put(k.suffix);
    values_.Put(k.value);
    ++keys_;
  }
}

std::uint32_t KeyspanBlockWriter::Size() const {
  std::uint32_t off = HeaderSize(kKeyspanColumns, kKeyspanHeaderSize);
  off = boundary_keys_.Size(boundary_keys_.rows(), off);
  off = boundary_starts_.Size(boundary_keys_.rows(), off);
  off = trailers_.Size(keys_, off);
  off = suffixes_.Size(keys_, off);
  off = values_.Size(keys_, off);
  return off + 1;
}

Result<ByteVector> KeyspanBlockWriter::Finish() const {
  ByteVector out;
  const std::uint32_t boundaries = boundary_keys_.rows();
  BlockWriter w(out, Size(), kKeyspanColumns, keys_, kKeyspanHeaderSize);
  StoreLE32(out.data(), boundaries);
  std::uint8_t* buf = w.data();
  w.EndColumn(boundary_keys_.Finish(boundaries, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(boundary_starts_.Finish(boundaries, w.BeginColumn(DataType::kUint), buf));
  w.EndColumn(trailers_.Finish(keys_, w.BeginColumn(DataType::kUint), buf));
  w.EndColumn(suffixes_.Finish(keys_, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(values_.Finish(keys_, w.BeginColumn(DataType::kBytes), buf));
  if (!w.Finish()) return Status::Internal("pebble keyspan block: column sizes disagree");
  return out;
}

void KeyspanBlockWriter::Reset() {
  boundary_keys_.Reset();
  boundary_starts_.Reset();
  trailers_.Reset();
  suffixes_.Reset();
  values_.Reset();
  keys_ = 0;
  any_ = false;
}

}  // namespace bloomcodec::pebble::colblk
