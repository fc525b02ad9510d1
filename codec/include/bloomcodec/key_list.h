// KeyList: many keys in one buffer, and the key-file formats of the command line.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::KeyList keys,
//       bloomcodec::ParseKeyFile(file.bytes(), bloomcodec::KeyFormat::kHex, "keys.hex"));
//   for (std::size_t i = 0; i < keys.size(); ++i) filter.Add(keys[i]);
//
// Keys are stored back to back with an offset table: two allocations for any number of keys,
// none per key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

namespace internal {

// Not part of the API: the key copy that KeyList::Add inlines, here because Add is inline. The
// library's own code calls it CopyShort too (codec/short_bytes.h). Copies n bytes without a call
// to memcpy when n is small (keys are mostly 8 - 32 bytes).
inline void CopyShort(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    // 8-byte steps, the last one overlapping the one before.
    std::uint64_t last;
    std::memcpy(&last, src + n - 8, 8);
    for (std::size_t i = 0; i + 8 < n; i += 8) std::memcpy(dst + i, src + i, 8);
    std::memcpy(dst + n - 8, &last, 8);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

}  // namespace internal

class KeyList {
 public:
  KeyList() : ends_() {}
  void Reserve(std::size_t keys, std::size_t bytes) {
    ends_.reserve(keys);
    data_.reserve(bytes);
  }
  void Add(ByteSpan key) {
    const std::size_t at = data_.size();
    data_.resize(at + key.size());  // default-initialized: the copy below is the only write
    internal::CopyShort(data_.data() + at, key.data(), key.size());
    ends_.push_back(data_.size());
  }
  void Add(std::string_view key) { Add(AsBytes(key)); }
  // Forgets the keys and keeps the capacity: a chunk of a stream refilled without allocating.
  void Clear() {
    data_.clear();
    ends_.clear();
  }

  // Clear, then these keys: a chunk of a stream copied where a KeyList is asked for.
  void Assign(std::span<const ByteSpan> keys) {
    Clear();
    for (const ByteSpan& k : keys) Add(k);
  }

  std::size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  ByteSpan operator[](std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return ByteSpan(data_.data() + begin, ends_[i] - begin);
  }
  std::size_t total_bytes() const { return data_.size(); }

 private:
  // std::allocator whose value-initialization leaves bytes uninitialized, so that growing data_
  // for a key does not write it twice.
  template <typename T>
  struct NoInitAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
      using other = NoInitAllocator<U>;
    };
    NoInitAllocator() = default;
    template <typename U>
    NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
      ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  };

  std::vector<std::uint8_t, NoInitAllocator<std::uint8_t>> data_;
  std::vector<std::size_t> ends_;
};

// The key-file encodings of the command-line contract.
enum class KeyFormat { kText, kHex, kBase64 };
bool ParseKeyFormat(std::string_view name, KeyFormat& out);

// Lines separated by '\n'; a last line without '\n' counts; an empty line is the empty key; an
// empty file holds no keys. text: the line's bytes exactly. hex: two digits (either case) per
// byte. base64: standard alphabet with padding. A malformed line gives a Corrupt status naming
// `source`, the line number and the byte offset.
Result<KeyList> ParseKeyFile(ByteSpan contents, KeyFormat format, std::string_view source);

}  // namespace bloomcodec
