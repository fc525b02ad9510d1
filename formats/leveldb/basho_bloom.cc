#include "leveldb/basho_bloom.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include <boost/endian/conversion.hpp>

#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

namespace {

// Basho's k: a signed char holding at most 30 probes.
constexpr int kBloom2MaxProbes = 30;
// Bits below which Basho's writer does not go, however few the keys.
constexpr std::uint64_t kBloom2MinBits = 61;

// The largest prime <= 8 * bytes for every byte count below kBloom2PrimeBytesLimit: a sieve up
// to 8 * 12497, run once (Basho ships the same numbers as a table; FORMAT.md says how they were
// checked against this rule).
const std::vector<std::uint32_t>& LargestPrimeTable() {
  static const std::vector<std::uint32_t> table = [] {
    const std::size_t limit = 8 * (kBloom2PrimeBytesLimit - 1);
    std::vector<bool> composite(limit + 1, false);
    for (std::size_t i = 2; i * i <= limit; ++i) {
      if (composite[i]) continue;
      for (std::size_t j = i * i; j <= limit; j += i) composite[j] = true;
    }
    std::vector<std::uint32_t> t(kBloom2PrimeBytesLimit, 0);
    std::uint32_t largest = 0;
    std::size_t bytes = 1;
    for (std::size_t n = 2; n <= limit; ++n) {
      if (!composite[n]) largest = static_cast<std::uint32_t>(n);
      if (n == 8 * bytes) t[bytes++] = largest;
    }
    return t;
  }();
  return table;
}

// One key's probes: h and h2 once, then (h + (j + 1) * h2) mod P, in 64 bits where Basho's j
// (a size_t) is 64-bit and in 32 where it is not, h stepping by its rotation as in LevelDB's
// filter (32-bit wrap).
template <typename Visit>
bool ForEachProbe(ByteSpan key, std::uint32_t modulus, int k, const Bloom2Build& build,
                  Visit visit) {
  std::uint32_t h =
      BloomHash(key, build.signed_tail ? HashFlavor::kSignedTail : HashFlavor::kUnsignedTail);
  const std::uint32_t h2 = build.murmur64a
                               ? static_cast<std::uint32_t>(MurmurHash64A(key, kBloom2MurmurSeed))
                               : MurmurHash2(key, kBloom2MurmurSeed);
  const std::uint32_t delta = (h >> 17) | (h << 15);
  for (std::uint64_t j = 0; j < static_cast<std::uint64_t>(k); ++j) {
    const std::uint64_t step = (j + 1) * h2;
    const std::uint64_t at = build.wide_probe
                                 ? h + step
                                 : static_cast<std::uint32_t>(h + static_cast<std::uint32_t>(step));
    const auto bit = static_cast<std::uint32_t>(at % modulus);
    if (!visit(bit)) return false;
    h += delta;
  }
  return true;
}

// The platforms of each (FORMAT.md): Linux on aarch64, POWER and s390x; Apple arm64 (signed
// char); i386; 32-bit ARM.
constexpr Bloom2Build kOtherBuilds[] = {
    {"64-bit non-x86 with unsigned char (Linux aarch64, ppc64, s390x)", false, false, true,
     "arm64-linux"},
    {"64-bit non-x86 with signed char (macOS arm64)", false, true, true, "arm64-macos"},
    {"32-bit with signed char (i386)", false, true, false, "i386"},
    {"32-bit with unsigned char (Linux armv7)", false, false, false, "armv7"},
};

}  // namespace

std::uint64_t MurmurHash64A(ByteSpan data, std::uint64_t seed) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const std::size_t n = data.size();
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(n) * m);
  const std::uint8_t* p = data.data();
  const std::size_t whole = n / 8 * 8;
  for (std::size_t off = 0; off < whole; off += 8) {
    std::uint64_t k;
    std::memcpy(&k, p + off, 8);
    k = boost::endian::little_to_native(k);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (const std::size_t tail = n - whole; tail > 0) {
    // The 1 to 7 bytes left, unsigned, as a little-endian number.
    std::uint64_t t = 0;
    for (std::size_t i = tail; i > 0; --i) t = (t << 8) | p[whole + i - 1];
    h ^= t;
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

std::span<const Bloom2Build> Bloom2OtherBuilds() { return kOtherBuilds; }

const Bloom2Build* FindBloom2Build(std::string_view id) {
  if (id == kBloom2X86_64.id) return &kBloom2X86_64;
  for (const Bloom2Build& b : kOtherBuilds) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

std::uint32_t MurmurHash2(ByteSpan data, std::uint32_t seed) {
  constexpr std::uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  std::size_t n = data.size();
  // Basho passes the length as an int into an unsigned: the low 32 bits.
  std::uint32_t h = seed ^ static_cast<std::uint32_t>(n);
  const std::uint8_t* p = data.data();
  for (; n >= 4; n -= 4, p += 4) {
    std::uint32_t k = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                      static_cast<std::uint32_t>(p[2]) << 16 |
                      static_cast<std::uint32_t>(p[3]) << 24;
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  // The 1 to 3 bytes left, unsigned (Murmur reads them as unsigned char on every build).
  if (n > 0) {
    if (n == 3) h ^= static_cast<std::uint32_t>(p[2]) << 16;
    if (n >= 2) h ^= static_cast<std::uint32_t>(p[1]) << 8;
    h ^= p[0];
    h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

std::uint32_t Bloom2Modulus(std::uint64_t bytes) {
  if (bytes < kBloom2PrimeBytesLimit) return LargestPrimeTable()[bytes];
  // Basho keeps the modulus in a 32-bit unsigned: 8 * bytes wraps from 2^29 bytes on.
  return static_cast<std::uint32_t>(bytes * 8);
}

int Bloom2K(int bits_per_key) {
  // Basho's size_t(bits_per_key * 0.69): truncated toward zero, then clamped.
  const auto k = static_cast<int>(bits_per_key * 0.69);
  return std::clamp(k, 1, kBloom2MaxProbes);
}

std::uint64_t Bloom2BytesFor(std::uint64_t bits) {
  std::uint64_t bytes = (bits + 7) / 8;
  while (bytes < kBloom2PrimeBytesLimit && Bloom2Modulus(bytes) < bits) ++bytes;
  return bytes;
}

bool Bloom2MayContain(ByteSpan filter, ByteSpan key, const Bloom2Build& build) {
  if (filter.size() < 2) return false;
  // Basho reads k from a (signed) char into a size_t: 0x80 and up become huge, hence > 30.
  const auto k = static_cast<std::int8_t>(filter.back());
  if (k < 0 || k > kBloom2MaxProbes) return true;
  const std::uint32_t modulus = Bloom2Modulus(filter.size() - 1);
  // 0 only for exactly 2^29 bytes, where Basho divides by zero: no answer but "may contain".
  if (modulus == 0) return true;
  const std::uint8_t* array = filter.data();
  return ForEachProbe(key, modulus, k, build, [array](std::uint32_t bit) {
    return ((array[bit / 8] >> (bit % 8)) & 1u) != 0;
  });
}

void Bloom2MayContainBatch(ByteSpan filter, const KeyList& keys, std::span<std::uint8_t> answers,
                           const Bloom2Build& build) {
  const std::size_t n = std::min(keys.size(), answers.size());
  for (std::size_t i = 0; i < n; ++i) answers[i] = Bloom2MayContain(filter, keys[i], build) ? 1 : 0;
}

void Bloom2AddKey(std::uint8_t* array, std::uint64_t bytes, int k, ByteSpan key,
                  const Bloom2Build& build) {
  const std::uint32_t modulus = Bloom2Modulus(bytes);
  if (modulus == 0) return;
  ForEachProbe(key, modulus, k, build, [array](std::uint32_t bit) {
    array[bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
    return true;
  });
}

void AppendBloom2Filter(int bits_per_key, const KeyList& keys, ByteVector& dst,
                        const Bloom2Build& build) {
  const int k = Bloom2K(bits_per_key);
  const std::uint64_t wanted = keys.size() * static_cast<std::uint64_t>(std::max(bits_per_key, 0));
  const std::uint64_t bytes = Bloom2BytesFor(std::max(wanted, kBloom2MinBits));
  const std::size_t at = dst.size();
  dst.resize(at + bytes, 0);
  for (std::size_t i = 0; i < keys.size(); ++i)
    Bloom2AddKey(dst.data() + at, bytes, k, keys[i], build);
  dst.push_back(static_cast<std::uint8_t>(k));
}

Bloom2Fill Bloom2FillOf(ByteSpan filter) {
  Bloom2Fill fill;
  if (filter.size() < 2) return fill;
  const std::uint64_t bytes = filter.size() - 1;
  fill.bits = Bloom2Modulus(bytes);
  const auto k = static_cast<std::int8_t>(filter.back());
  fill.hash_count = k >= 1 && k <= kBloom2MaxProbes && fill.bits > 0 ? k : 0;
  // Only bits below P can be set by a probe: count those.
  const std::uint64_t full = fill.bits / 8;
  for (std::uint64_t i = 0; i < full; ++i) fill.bits_set += std::popcount(filter[i]);
  if (const std::uint64_t rest = fill.bits % 8; rest > 0) {
    fill.bits_set += std::popcount(static_cast<std::uint8_t>(filter[full] & ((1u << rest) - 1)));
  }
  return fill;
}

}  // namespace bloomcodec::leveldb
