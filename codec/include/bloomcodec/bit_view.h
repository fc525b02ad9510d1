// Bit addressing over a filter's bytes as they sit in the file, so that filters are queried and
// built in place (zero-copy on read, no byte swapping on write).
//
//   bloomcodec::BitView<bloomcodec::BitOrder::kBigEndianWords64> bits(words_in_file);
//   if (bits.Test(bucket)) ...
//
// Two layouts exist among the formats:
//  * kLsbFirstBytes: bit b is bit (b % 8) of byte (b / 8). LevelDB and RocksDB filters, and the
//    raw bytes of a little-endian word array.
//  * kBigEndianWords64: bit b is bit (b % 64) of 64-bit word (b / 64), and the words are stored
//    big-endian (Java's DataOutputStream.writeLong). Bit b then lives in byte (b / 8) XOR 7 with
//    mask 1 << (b % 8): the XOR mirrors the byte within its 8-byte word.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace bloomcodec {

enum class BitOrder { kLsbFirstBytes, kBigEndianWords64 };

template <BitOrder Order, typename Byte>
class BasicBitView {
  static_assert(std::is_same_v<std::remove_const_t<Byte>, std::uint8_t>);

 public:
  BasicBitView() = default;
  explicit BasicBitView(std::span<Byte> bytes) : bytes_(bytes) {}

  std::uint64_t bit_count() const { return std::uint64_t{bytes_.size()} * 8; }
  std::span<Byte> bytes() const { return bytes_; }

  bool Test(std::uint64_t bit) const { return (bytes_[ByteIndex(bit)] >> (bit & 7)) & 1u; }
  void Set(std::uint64_t bit) const requires(!std::is_const_v<Byte>) {
    bytes_[ByteIndex(bit)] |= static_cast<std::uint8_t>(1u << (bit & 7));
  }

  // Number of set bits; the layout does not matter for a count.
  std::uint64_t PopCount() const {
    std::uint64_t n = 0;
    std::size_t i = 0;
    for (; i + 8 <= bytes_.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, bytes_.data() + i, 8);
      n += static_cast<std::uint64_t>(std::popcount(w));
    }
    for (; i < bytes_.size(); ++i) n += static_cast<std::uint64_t>(std::popcount(bytes_[i]));
    return n;
  }

  static constexpr std::size_t ByteIndex(std::uint64_t bit) {
    if constexpr (Order == BitOrder::kBigEndianWords64) {
      return static_cast<std::size_t>((bit >> 3) ^ 7);
    } else {
      return static_cast<std::size_t>(bit >> 3);
    }
  }

 private:
  std::span<Byte> bytes_;
};

template <BitOrder Order>
using BitView = BasicBitView<Order, const std::uint8_t>;
template <BitOrder Order>
using MutableBitView = BasicBitView<Order, std::uint8_t>;

}  // namespace bloomcodec
