#include "blocktable/block.h"

#include <algorithm>
#include <cstring>

#include "codec/byte_reader.h"
#include "codec/short_bytes.h"

namespace bloomcodec::blocktable {

namespace {

// RocksDB's kMaxBlockSizeSupportedByHashIndex: larger blocks store a plain restart count.
constexpr std::uint64_t kMaxRocksDbHashIndexedBlock = std::uint64_t{1} << 16;

std::uint32_t LoadLittleU32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

std::uint64_t LoadLittleU64(const std::uint8_t* p) {
  return std::uint64_t{LoadLittleU32(p)} | std::uint64_t{LoadLittleU32(p + 4)} << 32;
}

[[gnu::always_inline]] inline int CompareBytes(ByteSpan a, ByteSpan b) {
  const std::size_t n = std::min(a.size(), b.size());
  int r = CompareShort(a.data(), b.data(), n);
  if (r != 0) return r;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// A varint32 inside [p, limit): LevelDB's GetVarint32Ptr, bounds-checked.
const std::uint8_t* DecodeVarint32(const std::uint8_t* p, const std::uint8_t* limit,
                                   std::uint32_t& value) {
  std::uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    std::uint32_t byte = *p++;
    if (shift == 28 && byte > 0x0f) return nullptr;  // more than 32 bits
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      value = result;
      return p;
    }
  }
  return nullptr;
}

}  // namespace

BlockContents BlockContents::View(ByteSpan bytes, std::uint64_t file_offset) {
  BlockContents c;
  c.bytes_ = bytes;
  c.file_offset_ = file_offset;
  return c;
}

BlockContents BlockContents::Owned(ByteVector bytes, std::uint64_t file_offset) {
  BlockContents c;
  auto owned = std::make_shared<const ByteVector>(std::move(bytes));
  c.bytes_ = ByteSpan(*owned);
  c.owned_ = std::move(owned);
  c.file_offset_ = file_offset;
  return c;
}

Result<BlockContents> ReadBlock(ByteSpan file, const BlockHandle& handle, std::string_view source,
                                const ReadBlockOptions& options, std::string_view what) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckHandleInFile(handle, file.size(), source, what));
  if (options.verify_checksum) {
    BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(file, handle, source, options.trailer, what));
  }
  const ByteSpan data = file.subspan(handle.offset, handle.size);
  const std::uint64_t trailer_at = handle.offset + handle.size;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      BlockCompression compression,
      CompressionOf(options.trailer, file[trailer_at], source, trailer_at, what));
  if (compression == BlockCompression::kNone) return BlockContents::View(data, handle.offset);
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out,
                              Decompress(options.trailer, compression, data, source, handle.offset,
                                         what, options.max_uncompressed_size, options.dictionary));
  BlockContents c = BlockContents::Owned(std::move(out), handle.offset);
  c.set_compression(compression);
  return c;
}

namespace {

// A comparison's sign turned round (never negates INT_MIN).
inline int Reversed(int r) { return r < 0 ? 1 : (r > 0 ? -1 : 0); }
inline bool IsReverseOrder(KeyOrder order) {
  return order == KeyOrder::kReverseBytewise || order == KeyOrder::kReverseInternal;
}

// What a block's keys must do under `order` (a damage message).
std::string OrderExpectation(KeyOrder order) {
  return IsReverseOrder(order)
             ? "keys in strictly increasing order under the reverse comparator (bytewise "
               "decreasing)"
             : "keys in strictly increasing order";
}

// Basho's InternalKeyComparator: the user key ends 16 bytes before the end for its expiry types
// (2, 3: an expiry time before the tag) and 8 otherwise; equal user keys order by tag descending
// with an expiry type counted as type 1.
bool IsBashoExpiryKey(ByteSpan key) {
  return key.size() >= 16 && (key[key.size() - 8] == 2 || key[key.size() - 8] == 3);
}
int CompareBashoInternal(ByteSpan a, ByteSpan b) {
  const auto user = [](ByteSpan k) {
    return k.first(k.size() >= 8 ? k.size() - (IsBashoExpiryKey(k) ? 16 : 8) : k.size());
  };
  const auto tag = [](ByteSpan k) -> std::uint64_t {
    if (k.size() < 8) return 0;
    const std::uint64_t t = LoadLittleU64(k.data() + k.size() - 8);
    return IsBashoExpiryKey(k) ? (t & ~std::uint64_t{0xff}) | 1 : t;
  };
  if (const int r = CompareBytes(user(a), user(b)); r != 0) return r;
  const std::uint64_t ta = tag(a), tb = tag(b);
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

}  // namespace

int CompareKeys(KeyOrder order, ByteSpan a, ByteSpan b) {
  if (order == KeyOrder::kBytewise) return CompareBytes(a, b);
  if (!IsInternalOrder(order)) {
    const int r = CompareBytes(a, b);
    return IsReverseOrder(order) ? Reversed(r) : r;
  }
  if (order == KeyOrder::kBashoInternal) return CompareBashoInternal(a, b);
  const ByteSpan ua = a.size() >= 8 ? a.first(a.size() - 8) : a;
  const ByteSpan ub = b.size() >= 8 ? b.first(b.size() - 8) : b;
  int r = CompareBytes(ua, ub);
  if (r != 0) return IsReverseOrder(order) ? Reversed(r) : r;
  const std::uint64_t ta = a.size() >= 8 ? LoadLittleU64(a.data() + a.size() - 8) : 0;
  const std::uint64_t tb = b.size() >= 8 ? LoadLittleU64(b.data() + b.size() - 8) : 0;
  // Tags sort descending: the newest version of a user key comes first (in either direction).
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

[[gnu::always_inline]] inline int CompareKeysAfterInline(KeyOrder order, ByteSpan a, ByteSpan b,
                                                         std::size_t common) {
  if (order == KeyOrder::kBytewise) return CompareBytes(a.subspan(common), b.subspan(common));
  if (order != KeyOrder::kInternal) return CompareKeys(order, a, b);
  if (a.size() < 8 || b.size() < 8) return CompareKeys(order, a, b);
  const std::size_t ua = a.size() - 8;
  const std::size_t ub = b.size() - 8;
  // The user keys share their first min(common, ua, ub) bytes.
  const std::size_t skip = std::min({common, ua, ub});
  int r = CompareBytes(a.subspan(skip, ua - skip), b.subspan(skip, ub - skip));
  if (r != 0) return r;
  const std::uint64_t ta = LoadLittleU64(a.data() + ua);
  const std::uint64_t tb = LoadLittleU64(b.data() + ub);
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

int CompareKeysAfter(KeyOrder order, ByteSpan a, ByteSpan b, std::size_t common) {
  return CompareKeysAfterInline(order, a, b, common);
}

Result<Block> Block::Parse(BlockContents contents, std::string_view source, std::string_view what,
                           BlockFooterLayout layout) {
  Block block;
  block.source_ = std::string(source);
  block.what_ = std::string(what);
  const ByteSpan bytes = contents.bytes();
  block.contents_ = std::move(contents);
  if (bytes.size() < 4) {
    return block.ErrorAt(0, "a " + block.what_ + " of at least 4 bytes (restart count)",
                         std::to_string(bytes.size()) + " bytes");
  }
  if (bytes.size() > 0xffffffffu) {
    return block.ErrorAt(0, "a " + block.what_ + " shorter than 4 GiB");
  }
  std::uint32_t count = LoadLittleU32(bytes.data() + bytes.size() - 4);
  if (layout == BlockFooterLayout::kPebble) block.restart_mask_ = 0x7fffffffu;
  // Where the restart array ends: before the footer, and before a RocksDB hash index.
  std::uint64_t restarts_end = bytes.size() - 4;
  if (layout == BlockFooterLayout::kRocksDb && bytes.size() <= kMaxRocksDbHashIndexedBlock) {
    block.has_hash_index_ = (count >> 31) != 0;
    count &= 0x7fffffffu;
    if (block.has_hash_index_) {
      if (restarts_end < 2) {
        return block.ErrorAt(0, "room for the data-block hash index's bucket count");
      }
      const std::uint32_t buckets =
          std::uint32_t{bytes[restarts_end - 2]} | std::uint32_t{bytes[restarts_end - 1]} << 8;
      if (std::uint64_t{buckets} + 2 > restarts_end) {
        return block.ErrorAt(restarts_end - 2,
                             "a data-block hash index of at most " +
                                 std::to_string(restarts_end - 2) + " buckets",
                             std::to_string(buckets));
      }
      block.hash_index_buckets_ = buckets;
      restarts_end -= 2 + std::uint64_t{buckets};
    }
  }
  const std::uint64_t max_restarts = restarts_end / 4;
  if (count > max_restarts) {
    return block.ErrorAt(bytes.size() - 4,
                         "a restart count of at most " + std::to_string(max_restarts),
                         std::to_string(count));
  }
  block.num_restarts_ = count;
  block.restarts_offset_ = static_cast<std::uint32_t>(restarts_end - 4 * std::uint64_t{count});
  // LevelDB treats zero restarts as an empty block; it is only consistent with no entries.
  if (count == 0 && block.restarts_offset_ != 0) {
    return block.ErrorAt(bytes.size() - 4, "at least one restart point in a non-empty block");
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t r = block.restart_point(i);
    // An empty block (LevelDB writes 00000000 01000000) still has restart point 0.
    const bool in_entries = block.restarts_offset_ == 0 ? r == 0 : r < block.restarts_offset_;
    if (!in_entries) {
      return block.ErrorAt(block.restarts_offset_ + 4 * std::size_t{i},
                           "a restart offset inside the " + std::to_string(block.restarts_offset_) +
                               " bytes of entries",
                           std::to_string(r));
    }
  }
  return block;
}

std::uint32_t Block::restart_point(std::uint32_t i) const {
  return LoadLittleU32(contents_.bytes().data() + restarts_offset_ + 4 * std::size_t{i}) &
         restart_mask_;
}

Status Block::ErrorAt(std::size_t position, std::string expected, std::string found) const {
  if (contents_.compression() == BlockCompression::kNone) {
    return Status::Corrupt(source_, contents_.file_offset() + position,
                           std::move(expected) + " (" + what_ + ")", std::move(found));
  }
  return Status::Corrupt(source_, contents_.file_offset(),
                         std::move(expected) + " (byte " + std::to_string(position) +
                             " of the uncompressed " + what_ + ")",
                         std::move(found));
}

Status BlockIterator::DecodeEntryAt(std::size_t at, bool restart, EntryView& entry) const {
  const ByteSpan region = block_->entries();
  const std::uint8_t* const limit = region.data() + region.size();
  const std::uint8_t* p = region.data() + at;
  std::uint32_t shared = 0, non_shared = 0, value_length = 0;
  if (values_ != ValueEncoding::kLengthPrefixed) {
    if ((p = DecodeVarint32(p, limit, shared)) == nullptr) {
      return block_->ErrorAt(at, "a varint32 shared-prefix length");
    }
    if ((p = DecodeVarint32(p, limit, non_shared)) == nullptr) {
      return block_->ErrorAt(at, "a varint32 unshared key length");
    }
    if (restart && shared != 0) {
      return block_->ErrorAt(at, "shared length 0 at a restart point", std::to_string(shared));
    }
    return DecodeIndexValueAt(at, p, shared, non_shared, entry);
  }
  if (DecodeShortEntryAt(at, restart, entry)) return Status();
  if ((p = DecodeVarint32(p, limit, shared)) == nullptr) {
    return block_->ErrorAt(at, "a varint32 shared-prefix length");
  }
  if ((p = DecodeVarint32(p, limit, non_shared)) == nullptr) {
    return block_->ErrorAt(at, "a varint32 unshared key length");
  }
  if ((p = DecodeVarint32(p, limit, value_length)) == nullptr) {
    return block_->ErrorAt(at, "a varint32 value length");
  }
  const std::size_t header = static_cast<std::size_t>(p - (region.data() + at));
  if (restart && shared != 0) {
    return block_->ErrorAt(at, "shared length 0 at a restart point", std::to_string(shared));
  }
  if (std::uint64_t{non_shared} + value_length > static_cast<std::uint64_t>(limit - p)) {
    return block_->ErrorAt(at + header, std::to_string(non_shared) + " key bytes and " +
                                            std::to_string(value_length) +
                                            " value bytes inside the entries region");
  }
  entry.shared = shared;
  entry.key_suffix = ByteSpan(p, non_shared);
  entry.value = ByteSpan(p + non_shared, value_length);
  entry.next = at + header + non_shared + value_length;
  return Status();
}

Status BlockIterator::DecodeIndexValueAt(std::size_t at, const std::uint8_t* p,
                                         std::uint32_t shared, std::uint32_t non_shared,
                                         EntryView& entry) const {
  const ByteSpan region = block_->entries();
  const std::uint8_t* const limit = region.data() + region.size();
  const std::size_t header = static_cast<std::size_t>(p - (region.data() + at));
  if (std::uint64_t{non_shared} > static_cast<std::uint64_t>(limit - p)) {
    return block_->ErrorAt(at + header,
                           std::to_string(non_shared) + " key bytes inside the entries region");
  }
  const std::uint8_t* const value_start = p + non_shared;
  const std::uint8_t* v = value_start;
  // A whole handle is two varint64s, a delta one; each is at most 10 bytes.
  const int varints = shared == 0 ? 2 : 1;
  for (int i = 0; i < varints; ++i) {
    int length = 0;
    while (true) {
      if (v >= limit || length == 10) {
        return block_->ErrorAt(static_cast<std::size_t>(v - region.data()),
                               shared == 0 ? "a varint64 block handle in the index value"
                                           : "a varint64 size delta in the index value");
      }
      ++length;
      if ((*v++ & 0x80) == 0) break;
    }
  }
  if (values_ == ValueEncoding::kIndexHandleDeltaWithFirstKey) {
    std::uint32_t first_key_length = 0;
    const std::uint8_t* q = DecodeVarint32(v, limit, first_key_length);
    if (q == nullptr || first_key_length > static_cast<std::uint64_t>(limit - q)) {
      return block_->ErrorAt(static_cast<std::size_t>(v - region.data()),
                             "a length-prefixed first key in the index value");
    }
    v = q + first_key_length;
  }
  entry.shared = shared;
  entry.key_suffix = ByteSpan(p, non_shared);
  entry.value = ByteSpan(value_start, static_cast<std::size_t>(v - value_start));
  entry.next = static_cast<std::size_t>(v - region.data());
  return Status();
}

Status BlockIterator::SharedTooLongError(std::size_t at, std::size_t previous_size,
                                         std::uint32_t shared) const {
  return block_->ErrorAt(at,
                         "a shared length of at most the previous key's " +
                             std::to_string(previous_size) + " bytes",
                         std::to_string(shared));
}

Status BlockIterator::FirstRestartError() const {
  return block_->ErrorAt(block_->entries().size(), "restart point 0 at offset 0",
                         std::to_string(block_->restart_point(0)));
}

Status BlockIterator::ShortInternalKeyError(std::size_t at, std::size_t key_size) const {
  return block_->ErrorAt(at, "an internal key of at least 8 bytes (user key + tag)",
                         std::to_string(key_size) + " bytes");
}

Status BlockIterator::RestartKeyAt(std::size_t at, ByteSpan& key) const {
  EntryView entry;
  BLOOMCODEC_RETURN_IF_ERROR(DecodeEntryAt(at, true, entry));
  if (KeyTooShort(entry.key_suffix.size()))
    return ShortInternalKeyError(at, entry.key_suffix.size());
  key = entry.key_suffix;  // shared = 0: the whole key, in place
  return Status();
}

Status BlockIterator::ParseEntryAt(std::size_t at, bool restart) {
  valid_ = false;
  EntryView entry;
  BLOOMCODEC_RETURN_IF_ERROR(DecodeEntryAt(at, restart, entry));
  if (entry.shared > key_.size()) return SharedTooLongError(at, key_.size(), entry.shared);
  key_.resize(entry.shared);
  key_.insert(key_.end(), entry.key_suffix.begin(), entry.key_suffix.end());
  if (KeyTooShort(key_.size())) return ShortInternalKeyError(at, key_.size());
  value_ = entry.value;
  shared_ = entry.shared;
  entry_ = at;
  next_ = entry.next;
  valid_ = true;
  return Status();
}

Status BlockIterator::SeekToFirst() {
  valid_ = false;
  key_.clear();
  if (block_->entries().empty()) return Status();
  if (block_->restart_point(0) != 0) return FirstRestartError();
  return ParseEntryAt(0, true);
}

Status BlockIterator::Next() {
  valid_ = false;
  if (next_ >= block_->entries().size()) return Status();
  return ParseEntryAt(next_, false);
}

Status BlockIterator::Seek(ByteSpan target) {
  valid_ = false;
  if (block_->entries().empty()) return Status();
  // Binary search for the last restart point whose key is < target, as Block::Iter::Seek.
  std::uint32_t left = 0;
  std::uint32_t right = block_->num_restarts() - 1;
  // Restart keys are compared where they lie in the block (shared = 0), not copied.
  while (left < right) {
    const std::uint32_t mid = left + (right - left + 1) / 2;
    ByteSpan mid_key;
    BLOOMCODEC_RETURN_IF_ERROR(RestartKeyAt(block_->restart_point(mid), mid_key));
    if (CompareKeys(order_, mid_key, target) < 0) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  key_.clear();
  BLOOMCODEC_RETURN_IF_ERROR(ParseEntryAt(block_->restart_point(left), true));
  while (valid_) {
    if (CompareKeys(order_, key(), target) >= 0) return Status();
    BLOOMCODEC_RETURN_IF_ERROR(Next());
  }
  return Status();
}

Status CheckedBlockWalk::SeekToFirst() {
  valid_ = false;
  entries_ = 0;
  next_restart_ = 0;
  damage_ = Status();
  keys_[0].clear();
  keys_[1].clear();
  current_ = 0;
  // An empty block's restart points are all 0 (checked by Parse): nothing to walk or check.
  if (block_->entries().empty()) return Status();
  if (block_->restart_point(0) != 0) return Stop(decoder_.FirstRestartError());
  return ParseEntryAt(0, true);
}

// BlockIterator::ParseEntryAt's decoding and errors, into the other key buffer.
Status CheckedBlockWalk::ParseEntryAt(std::size_t at, bool restart) {
  BlockIterator::EntryView entry;
  // The common entry decoded inline; anything else, errors included, by DecodeEntryAt, into an
  // entry of its own: `entry` must not escape, or it lives on the stack and each entry's spans
  // are stored in halves and loaded back whole, a load the CPU cannot forward (a stall that
  // was a fifth of this function's time).
  if (!decoder_.DecodeShortEntryAt(at, restart, entry)) [[unlikely]] {
    BlockIterator::EntryView slow;
    if (Status s = decoder_.DecodeEntryAt(at, restart, slow); !s.ok()) return Stop(std::move(s));
    entry = slow;
  }
  const KeyBuffer& previous = keys_[current_];
  if (entry.shared > previous.size()) [[unlikely]] {
    return Stop(decoder_.SharedTooLongError(at, previous.size(), entry.shared));
  }
  const std::size_t size = std::size_t{entry.shared} + entry.key_suffix.size();
  if (decoder_.KeyTooShort(size)) [[unlikely]] {
    return Stop(decoder_.ShortInternalKeyError(at, size));
  }
  KeyBuffer& key = keys_[current_ ^ 1];
  key.resize(size, boost::container::default_init);
  CopyShort(key.data(), previous.data(), entry.shared);
  CopyShort(key.data() + entry.shared, entry.key_suffix.data(), entry.key_suffix.size());
  current_ ^= 1;
  value_ = entry.value;
  shared_ = entry.shared;
  entry_ = at;
  next_ = entry.next;
  valid_ = true;
  if (damage_.ok()) CheckEntry();
  ++entries_;
  return Status();
}

// VerifyBlock's checks of the entry just parsed, in its order.
[[gnu::always_inline]] inline void CheckedBlockWalk::CheckEntry() {
  const std::size_t at = entry_;
  if (next_restart_ < block_->num_restarts()) {
    const std::uint32_t restart = block_->restart_point(next_restart_);
    if (restart < at) [[unlikely]] {
      damage_ = block_->ErrorAt(block_->entries().size() + 4 * std::size_t{next_restart_},
                                "a restart offset at an entry boundary", std::to_string(restart));
      return;
    }
    if (restart == at) {
      // An entry at a restart point must stand alone (shared length 0).
      if (shared_ != 0) [[unlikely]] {
        damage_ =
            block_->ErrorAt(at, "shared length 0 at a restart point", std::to_string(shared_));
        return;
      }
      ++next_restart_;
    }
  }
  if (entries_ > 0 && CompareKeysAfterInline(order_, previous_key(), key(), shared_) >= 0)
      [[unlikely]] {
    // Under an unknown comparator any order may be right: nothing is judged.
    if (IsKnownOrder(order_)) damage_ = block_->ErrorAt(at, OrderExpectation(order_));
  }
}

void CheckedBlockWalk::CheckEnd() {
  if (!damage_.ok() || block_->entries().empty()) return;
  if (next_restart_ != block_->num_restarts()) {
    damage_ = block_->ErrorAt(block_->entries().size() + 4 * std::size_t{next_restart_},
                              "a restart offset at an entry boundary",
                              std::to_string(block_->restart_point(next_restart_)));
  }
}

Result<std::uint64_t> VerifyBlock(const Block& block, KeyOrder order, ValueEncoding values) {
  CheckedBlockWalk walk(block, order, values);
  Status s = walk.SeekToFirst();
  while (s.ok() && walk.valid() && walk.damage().ok()) s = walk.Next();
  if (!walk.damage().ok()) return walk.damage();
  return walk.entries();
}

}  // namespace bloomcodec::blocktable
