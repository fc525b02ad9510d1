// |x| mod m without a division, for the bucket / index reduction of the 1.0 and 3.0+ filters.
#pragma once

#include <cstdint>

namespace bloomcodec::cassandra {

// With M = floor((2^128 - 1) / m) + 1, n mod m = ((M * n mod 2^128) * m) >> 128 exactly for every
// 64-bit n and m (Lemire, Kaser, Kurz, "Faster remainder by direct computation", 2019). M costs
// one 128-bit division; the filters compute it once (when their word count is set) and keep its
// two halves, so a lookup reduces with four multiplications instead of a division per bucket.
class FastMod64 {
  __extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension

 public:
  struct Inverse {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
  };
  static Inverse InverseOf(std::uint64_t m) {
    const U128 inverse = ~U128{0} / m + 1;
    return {static_cast<std::uint64_t>(inverse), static_cast<std::uint64_t>(inverse >> 64)};
  }

  FastMod64(std::uint64_t m, Inverse inverse)
      : m_(m), inverse_((static_cast<U128>(inverse.high) << 64) | inverse.low) {}
  explicit FastMod64(std::uint64_t m) : FastMod64(m, InverseOf(m)) {}

  std::uint64_t operator()(std::uint64_t n) const {
    const U128 fraction = inverse_ * n;  // mod 2^128
    const U128 low = (static_cast<U128>(static_cast<std::uint64_t>(fraction)) * m_) >> 64;
    const U128 high = static_cast<U128>(static_cast<std::uint64_t>(fraction >> 64)) * m_;
    return static_cast<std::uint64_t>((low + high) >> 64);
  }

  // Trap (section 10.5): Java's Math.abs(x % max) with a truncating %, i.e. |x| mod m, for
  // x = base + i * step in wrapping long arithmetic; |x| on u64 (0 - x) is exact even for
  // Long.MIN_VALUE.
  std::uint64_t AbsMod(std::uint64_t base, std::uint64_t step, std::uint64_t i) const {
    const std::uint64_t x = base + i * step;
    const std::uint64_t sign = 0 - (x >> 63);
    return (*this)((x ^ sign) - sign);
  }

 private:
  std::uint64_t m_;
  U128 inverse_;
};

}  // namespace bloomcodec::cassandra
