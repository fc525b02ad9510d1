// PrefixBytesBuilder: Pebble's writer rules for prefixbytes columns (prefix_bytes.go:
// PrefixBytesBuilder.Put, writePrefixCompressed, Finish), which decide the bytes:
// * shared prefix = the longest common prefix of all keys, at most 65535 bytes; a bundle's
//   prefix = the longest common prefix of its keys (at most 65535), stored without the shared
//   prefix; each row stores its key without its bundle's prefix (a bundle of one key stores it
//   all as the bundle prefix and an empty row);
// * a key equal to the one before in the same bundle stores an empty slice; a bundle's first row
//   always takes its bytes from the data, even when it repeats the key before;
// * one row: the three offsets are the key's length and the whole key is "shared prefix";
// * offsets have the narrowest plain width for the data length.
// The running sizings of the last two keys make Finish with one row fewer exact.
#include <algorithm>
#include <bit>

#include "pebble/colblk/prefix_bytes.h"

namespace bloomcodec::pebble::colblk {

namespace {

std::uint64_t CommonPrefix(ByteSpan a, ByteSpan b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

PrefixBytesBuilder::PrefixBytesBuilder(std::uint32_t bundle_size)
    : shift_(static_cast<unsigned>(std::countr_zero(bundle_size))), bundle_size_(bundle_size) {}

void PrefixBytesBuilder::Reset() {
  data_.clear();
  keys_ = 0;
  completed_bundles_len_ = 0;
  sizings_[0] = Sizing();
  sizings_[1] = Sizing();
  offsets_.clear();
}

ByteSpan PrefixBytesBuilder::Get(std::uint32_t i) const {
  const ByteSpan all(data_);
  if (i + 1 == keys_) return all.subspan(sizings_[i & 1].last_key_offset);
  const std::uint64_t last = sizings_[(i ^ 1) & 1].last_key_offset;
  const std::uint64_t second = sizings_[i & 1].last_key_offset;
  if (second == last) return all.subspan(second);
  return all.subspan(second, last - second);
}

void PrefixBytesBuilder::Put(ByteSpan key) {
  const std::uint64_t shared = keys_ == 0 ? 0 : CommonPrefix(key, Get(keys_ - 1));
  if ((keys_ & (bundle_size_ - 1)) == 0) {
    PutFirstOfBundle(key, shared);
    return;
  }
  Sizing& curr = sizings_[keys_ & 1];
  const Sizing& prev = sizings_[(keys_ & 1) ^ 1];
  ++keys_;
  if (shared == key.size()) {
    // A repeat of the key before: an empty slice, the sizing unchanged but for the offset.
    curr = prev;
    curr.offset_count++;
    offsets_.push_back(offsets_.back());
    return;
  }
  Sizing next;
  next.last_key_offset = data_.size();
  next.offset_count = prev.offset_count + 1;
  next.block_prefix = std::min(prev.block_prefix, shared);
  next.bundle_distinct_len = prev.bundle_distinct_len + key.size();
  next.bundle_distinct_keys = prev.bundle_distinct_keys + 1;
  next.bundle_prefix = std::min(prev.bundle_prefix, shared);
  next.bundle_prefix_slot = prev.bundle_prefix_slot;
  next.compressed_len = completed_bundles_len_ + next.bundle_distinct_len -
                        (next.bundle_distinct_keys - 1) * next.bundle_prefix -
                        (BundleCount(keys_) - 1) * next.block_prefix;
  next.offset_encoding = DetermineUintEncodingNoDelta(next.compressed_len);
  curr = next;
  data_.insert(data_.end(), key.begin(), key.end());
  offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
}

void PrefixBytesBuilder::PutFirstOfBundle(ByteSpan key, std::uint64_t shared) {
  Sizing& curr = sizings_[keys_ & 1];
  const Sizing& prev = sizings_[(keys_ & 1) ^ 1];
  Sizing next;
  if (keys_ == 0) {
    offsets_.assign({0, 0});
    ++keys_;
    data_.assign(key.begin(), key.end());
    offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
    next.offset_count = offsets_.size();
    next.block_prefix = std::min<std::uint64_t>(key.size(), kMaxShared);
    next.bundle_distinct_len = key.size();
    next.bundle_distinct_keys = 1;
    next.bundle_prefix = next.block_prefix;
    next.bundle_prefix_slot = 1;
    next.compressed_len = key.size();
    next.offset_encoding = DetermineUintEncodingNoDelta(key.size());
    curr = next;
    return;
  }
  // Close the bundle before: its prefix slot ends that many bytes into its first key.
  offsets_[prev.bundle_prefix_slot] =
      offsets_[prev.bundle_prefix_slot - 1] + static_cast<std::uint32_t>(prev.bundle_prefix);
  completed_bundles_len_ +=
      prev.bundle_distinct_len - (prev.bundle_distinct_keys - 1) * prev.bundle_prefix;
  ++keys_;
  next.last_key_offset = data_.size();
  next.offset_count = offsets_.size() + 2;
  next.block_prefix = std::min(prev.block_prefix, shared);
  next.bundle_prefix_slot = offsets_.size();
  next.bundle_prefix = std::min<std::uint64_t>(key.size(), kMaxShared);
  next.bundle_distinct_len = key.size();
  next.bundle_distinct_keys = 1;
  next.compressed_len =
      completed_bundles_len_ + key.size() - (BundleCount(keys_) - 1) * next.block_prefix;
  next.offset_encoding = DetermineUintEncodingNoDelta(next.compressed_len);
  curr = next;
  data_.insert(data_.end(), key.begin(), key.end());
  offsets_.push_back(0);  // the new bundle's prefix slot, set when the bundle closes
  offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
}

std::uint32_t PrefixBytesBuilder::Size(std::uint32_t rows, std::uint32_t offset) const {
  if (rows == 0) return offset;
  const Sizing& sz = sizings_[(rows & 1) ^ 1];
  return static_cast<std::uint32_t>(
      UintColumnEnd(sz.offset_count, std::uint64_t{offset} + 1, sz.offset_encoding) +
      sz.compressed_len);
}

std::uint32_t PrefixBytesBuilder::Finish(std::uint32_t rows, std::uint32_t offset,
                                         std::uint8_t* buf) const {
  if (rows == 0) return offset;
  buf[offset++] = static_cast<std::uint8_t>(shift_);
  const Sizing& sz = sizings_[(rows & 1) ^ 1];
  const std::uint64_t data_at = UintColumnEnd(sz.offset_count, offset, sz.offset_encoding);
  const unsigned width = sz.offset_encoding.width();
  buf[offset++] = sz.offset_encoding.byte();
  // Width 0 means no data at all (only empty keys). Pebble's writer panics there; we write the
  // encoding readers take for it: every offset 0.
  if (width == 0) return static_cast<std::uint32_t>(data_at);
  const std::uint32_t table_at = static_cast<std::uint32_t>(AlignUp(offset, width));
  std::fill(buf + offset, buf + table_at, 0);
  WriteCompressed(rows, sz, width, buf + table_at, buf + data_at);
  return static_cast<std::uint32_t>(data_at + sz.compressed_len);
}

void PrefixBytesBuilder::WriteCompressed(std::uint32_t rows, const Sizing& sz, unsigned width,
                                         std::uint8_t* offsets, std::uint8_t* data) const {
  auto set = [&](std::uint64_t i, std::uint64_t v) {
    if (width == 1) offsets[i] = static_cast<std::uint8_t>(v);
    if (width == 2) StoreLE16(offsets + 2 * i, static_cast<std::uint16_t>(v));
    if (width == 4) StoreLE32(offsets + 4 * i, static_cast<std::uint32_t>(v));
  };
  if (rows == 1) {
    const std::uint32_t e = offsets_[2];
    for (int i = 0; i < 3; ++i) set(i, e);
    std::copy_n(data_.data(), e, data);
    return;
  }
  std::copy_n(data_.data(), sz.block_prefix, data);
  std::uint64_t dest = sz.block_prefix;
  set(0, dest);
  std::uint64_t last_row = 0;  // where the last stored row ends in data_
  std::uint64_t shared = 0;    // the current bundle's whole prefix length
  for (std::uint64_t i = 1; i < sz.offset_count; ++i) {
    const std::uint64_t off = offsets_[i];
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    if ((i - 1) % (std::uint64_t{bundle_size_} + 1) == 0) {
      // A bundle prefix slot; the open bundle's end is not in offsets_ yet.
      from = last_row + sz.block_prefix;
      to = i == sz.bundle_prefix_slot ? last_row + sz.bundle_prefix : off;
      shared = sz.block_prefix + (to - from);
    } else {
      if (off == last_row) {
        set(i, dest);  // a repeat of the row before
        continue;
      }
      from = last_row + shared;
      to = off;
      last_row = off;
    }
    std::copy(data_.begin() + from, data_.begin() + to, data + dest);
    dest += to - from;
    set(i, dest);
  }
}

}  // namespace bloomcodec::pebble::colblk
