#include "pebble/colblk/prefix_bytes.h"

#include <algorithm>
#include <string>

#include "codec/short_bytes.h"

namespace bloomcodec::pebble::colblk {

void KeyBuffer::Grow(std::size_t n) {
  const std::size_t capacity = std::max<std::size_t>({n, 2 * capacity_, 64});
  auto fresh = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
  if (capacity_ > 0) std::copy_n(data_.get(), capacity_, fresh.get());
  data_ = std::move(fresh);
  capacity_ = capacity;
}

ByteSpan PrefixBytes::RowSuffix(std::uint32_t row) const {
  std::uint64_t i = RowSlice(row);
  std::uint64_t low = Offset(i);
  std::uint64_t high = Offset(i + 1);
  // An empty slice repeats the row before: walk back to the bundle's last non-empty one.
  const std::uint64_t first = BundleSlice(row >> shift_) + 1;
  while (low == high && i > first) {
    --i;
    high = low;
    low = Offset(i);
  }
  return ByteSpan(data() + low, high - low);
}

void PrefixBytes::AppendRow(std::uint32_t row, ByteVector& out) const {
  for (ByteSpan part : {SharedPrefix(), RowBundlePrefix(row), RowSuffix(row)}) {
    out.insert(out.end(), part.begin(), part.end());
  }
}

Result<PrefixBytes> DecodePrefixBytes(const ColumnBytes& column, std::uint64_t& pos,
                                      std::uint32_t rows) {
  if (rows == 0) {
    return column.Error(pos, "a prefixbytes column of at least one row (Pebble panics on none)",
                        "0 rows");
  }
  if (pos >= column.end) {
    return column.Error(pos, "the prefixbytes bundle shift", "the end of the column");
  }
  const unsigned shift = column.block[pos];
  if (shift > kMaxBundleShift) {
    return column.Error(pos, "a bundle shift of at most 31 (bundles of 2^shift rows)",
                        std::to_string(shift));
  }
  std::uint64_t p = pos + 1;
  const std::uint64_t bundles = 1 + ((std::uint64_t{rows} - 1) >> shift);
  BLOOMCODEC_ASSIGN_OR_RETURN(
      RawBytes raw, DecodeRawBytes(column, p, rows + bundles, "prefix-compressed strings"));
  pos = p;
  return PrefixBytes(raw, rows, shift);
}

Result<PrefixBytes> DecodePrefixBytesColumn(const ColumnBytes& column, std::uint32_t rows) {
  std::uint64_t pos = column.start;
  BLOOMCODEC_ASSIGN_OR_RETURN(PrefixBytes p, DecodePrefixBytes(column, pos, rows));
  BLOOMCODEC_RETURN_IF_ERROR(column.CheckEnd(pos));
  return p;
}

void PrefixBytesCursor::CopyBytes(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  CopyShort(dst, src, n);
}

void PrefixBytesCursor::SetAt(const PrefixBytes& p, std::uint32_t row, KeyBuffer& key) {
  const std::uint64_t bundle = p.BundleSlice(row >> p.bundle_shift());
  const ByteSpan shared = p.SharedPrefix();
  const ByteSpan bundle_prefix = p.Slice(bundle);
  slice_ = p.RowSlice(row);
  const ByteSpan suffix = p.RowSuffix(row);
  prefix_ = shared.size() + bundle_prefix.size();
  length_ = prefix_ + suffix.size();
  key.Reserve(length_);
  std::uint8_t* out = key.data();
  CopyShort(out, shared.data(), shared.size());
  CopyShort(out + shared.size(), bundle_prefix.data(), bundle_prefix.size());
  CopyShort(out + prefix_, suffix.data(), suffix.size());
  next_bundle_slice_ = bundle + (std::uint64_t{1} << p.bundle_shift()) + 1;
}

void PrefixBytesCursor::NextBundle(const PrefixBytes& p, KeyBuffer& key) {
  // slice_ is the next bundle's prefix slice; its first row's suffix follows it.
  ++slice_;
  const std::uint64_t bundle_start = p.Offset(next_bundle_slice_);
  const std::uint64_t start = p.Offset(slice_);
  const std::uint64_t end = p.Offset(slice_ + 1);
  const std::size_t shared = p.SharedPrefix().size();
  next_bundle_slice_ = slice_ + (std::uint64_t{1} << p.bundle_shift());
  prefix_ = shared + (start - bundle_start);
  length_ = prefix_ + (end - start);
  key.Reserve(length_);
  // The shared prefix is already in the buffer; the new bundle prefix and suffix are adjacent.
  CopyShort(key.data() + shared, p.data() + bundle_start, end - bundle_start);
}

}  // namespace bloomcodec::pebble::colblk
