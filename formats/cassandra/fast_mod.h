// |x| mod m without a division, for the bucket / index reduction of the 1.0 and 3.0+ filters.
#pragma once

#include <cstdint>

namespace bloomcodec::cassandra {

// Barrett reduction with a 64-bit reciprocal R = floor((2^64 - 1) / m), for every m >= 1 and
// 64-bit n: q = floor(n * R / 2^64) is floor(n / m) or one less (n * R / 2^64 > n / m - 1, since
// R > 2^64 / m - 1 and n < 2^64), so n - q * m is below 2m and one conditional subtraction makes
// it n mod m. R costs one division; the filters compute it once (when their word count is set),
// so a lookup reduces with two multiplications instead of a division per bucket. (The 128-bit
// reciprocal of Lemire, Kaser and Kurz's direct remainder, used before, needs four.)
class FastMod64 {
  __extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension

 public:
  static std::uint64_t ReciprocalOf(std::uint64_t m) { return ~std::uint64_t{0} / m; }

  FastMod64(std::uint64_t m, std::uint64_t reciprocal) : m_(m), reciprocal_(reciprocal) {}
  explicit FastMod64(std::uint64_t m) : FastMod64(m, ReciprocalOf(m)) {}

  std::uint64_t operator()(std::uint64_t n) const {
    const std::uint64_t q = static_cast<std::uint64_t>((static_cast<U128>(n) * reciprocal_) >> 64);
    const std::uint64_t r = n - q * m_;
    return r >= m_ ? r - m_ : r;
  }

  std::uint64_t modulus() const { return m_; }
  std::uint64_t reciprocal() const { return reciprocal_; }

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
  std::uint64_t reciprocal_;
};

}  // namespace bloomcodec::cassandra
