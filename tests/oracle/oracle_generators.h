// RapidCheck generators for the java-oracle properties: keys, seeds, moduli, sizing arguments.
// Every generator is wrapped in gen::resize(100, ...) by its users so ranges are uniform from
// the first run (RapidCheck otherwise starts every range at its minimum).
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/sizing.h"

namespace bloomcodec::testing {

namespace gen = rc::gen;

inline rc::Gen<std::uint64_t> UniformU64() {
  return gen::map(gen::tuple(gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 32),
                             gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 32)),
                  [](const std::tuple<std::uint64_t, std::uint64_t>& t) {
                    return (std::get<0>(t) << 32) | std::get<1>(t);
                  });
}

inline rc::Gen<std::int64_t> UniformI64() {
  return gen::map(UniformU64(), [](std::uint64_t u) { return static_cast<std::int64_t>(u); });
}

inline rc::Gen<std::int32_t> UniformI32() {
  return gen::map(UniformU64(), [](std::uint64_t u) { return static_cast<std::int32_t>(u); });
}

inline rc::Gen<ByteVector> RandomBytes(std::size_t min_len, std::size_t max_len) {
  return gen::mapcat(gen::inRange<std::size_t>(min_len, max_len + 1), [](std::size_t n) {
    return gen::container<ByteVector>(n, gen::arbitrary<std::uint8_t>());
  });
}

// Keys for the hash properties: every tail length, high bytes, long and empty keys.
inline rc::Gen<ByteVector> HashKey() {
  return gen::weightedOneOf<ByteVector>({
      {8, RandomBytes(0, 80)},
      {2, RandomBytes(81, 3000)},
      // The sign-extension trap: tail bytes forced to >= 0x80 (for both tail sizes 8 and 4).
      {3, gen::map(RandomBytes(0, 70),
                   [](ByteVector k) {
                     for (std::size_t i = k.size() & ~std::size_t{3}; i < k.size(); ++i)
                       k[i] |= 0x80;
                     return k;
                   })},
      {1, gen::map(RandomBytes(0, 70),
                   [](ByteVector k) {
                     for (auto& b : k) b &= 0x7f;
                     return k;
                   })},
      {1, gen::map(gen::tuple(gen::elementOf(std::vector<std::uint8_t>{0x00, 0x7f, 0x80, 0xff}),
                              gen::inRange<std::size_t>(1, 40)),
                   [](const std::tuple<std::uint8_t, std::size_t>& t) {
                     return ByteVector(std::get<1>(t), std::get<0>(t));
                   })},
      {1, gen::just(ByteVector{})},
  });
}

// Keys and column names for filters: short, as Cassandra row keys usually are.
inline rc::Gen<ByteVector> FilterKey() {
  return gen::weightedOneOf<ByteVector>({{6, RandomBytes(0, 24)}, {1, RandomBytes(25, 100)}});
}

inline rc::Gen<std::int64_t> HashSeed64() {
  return gen::weightedOneOf<std::int64_t>({
      {6, UniformI64()},
      {1, gen::inRange<std::int64_t>(-1000, 1000)},
      {1, gen::map(UniformI64(), [](std::int64_t s) { return s & 0xffffffff; })},
      {1, gen::elementOf(std::vector<std::int64_t>{0, -1, std::numeric_limits<std::int64_t>::min(),
                                                   std::numeric_limits<std::int64_t>::max(),
                                                   0x80000000LL, 0xffffffffLL, 0x100000000LL})},
  });
}

inline rc::Gen<std::int32_t> HashSeed32() {
  return gen::weightedOneOf<std::int32_t>({
      {6, UniformI32()},
      {1, gen::inRange<std::int32_t>(-1000, 1000)},
      {1, gen::elementOf(std::vector<std::int32_t>{0, -1, std::numeric_limits<std::int32_t>::min(),
                                                   std::numeric_limits<std::int32_t>::max()})},
  });
}

// Bit counts (the bucket modulus) of a 1.0 filter, any positive long, with the int-sized
// boundaries 2^31 and 2^32 and the largest real filter 64 * (2^31 - 1).
inline rc::Gen<std::int64_t> BucketModulus64() {
  constexpr std::int64_t k31 = std::int64_t{1} << 31;
  constexpr std::int64_t k32 = std::int64_t{1} << 32;
  return gen::weightedOneOf<std::int64_t>({
      {3, gen::map(gen::inRange<std::int64_t>(1, k31), [](std::int64_t w) { return 64 * w; })},
      {2, gen::inRange<std::int64_t>(k31 - 200, k31 + 200)},
      {2, gen::inRange<std::int64_t>(k32 - 200, k32 + 200)},
      {3, gen::map(UniformI64(),
                   [](std::int64_t v) {
                     std::int64_t m = v & std::numeric_limits<std::int64_t>::max();
                     return m == 0 ? 1 : m;
                   })},
      {1, gen::inRange<std::int64_t>(1, 1000)},
      {1, gen::elementOf(std::vector<std::int64_t>{
              1, 2, 64, std::numeric_limits<std::int64_t>::max(), std::int64_t{1} << 62,
              64 * (k31 - 1), k32, k31, k31 * 64, k32 * 64})},
  });
}

inline rc::Gen<std::int32_t> BucketModulus32() {
  return gen::weightedOneOf<std::int32_t>({
      {3, gen::map(gen::inRange<std::int32_t>(1, 1 << 25), [](std::int32_t w) { return 64 * w; })},
      {3, gen::inRange<std::int32_t>(1, std::numeric_limits<std::int32_t>::max())},
      {1, gen::inRange<std::int32_t>(1, 1000)},
      {1, gen::elementOf(std::vector<std::int32_t>{1, 64, std::numeric_limits<std::int32_t>::max(),
                                                   1 << 30, 64 * ((1 << 25) - 1)})},
  });
}

// Key counts for sizing: everything a Java long can be, weighted towards the boundaries where
// maxBucketsPerElement changes, the int word count overflows and the bit count wraps.
inline rc::Gen<std::int64_t> ElementCount() {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return gen::weightedOneOf<std::int64_t>({
      {3, UniformI64()},
      {3, gen::inRange<std::int64_t>(-5, 200000)},
      {2, gen::map(gen::tuple(gen::inRange<std::int64_t>(1, 22), gen::inRange<std::int64_t>(-4, 5)),
                   [](const std::tuple<std::int64_t, std::int64_t>& t) {
                     // Long.MAX_VALUE / k: where maxBucketsPerElement steps. The offset is
                     // added as Java adds longs: for k = 1 it wraps to Long.MIN_VALUE + d - 1
                     // (a count the sizing must also take), where a C++ signed add is undefined.
                     return static_cast<std::int64_t>(
                         static_cast<std::uint64_t>(kMax / std::get<0>(t)) +
                         static_cast<std::uint64_t>(std::get<1>(t)));
                   })},
      {2,
       gen::map(gen::tuple(gen::inRange<std::int64_t>(1, 21), gen::inRange<std::int64_t>(-40, 41)),
                [](const std::tuple<std::int64_t, std::int64_t>& t) {
                  // Where 64 * (2^31 - 1) bits are reached for k buckets per element.
                  return (std::int64_t{64} * ((std::int64_t{1} << 31) - 1) - 20) / std::get<0>(t) +
                         std::get<1>(t);
                })},
      {1, gen::inRange<std::int64_t>(0, std::int64_t{1} << 42)},
      {1, gen::elementOf(std::vector<std::int64_t>{
              0, 1, -1, -2, kMax, kMax - 20, std::numeric_limits<std::int64_t>::min(),
              std::int64_t{1} << 40, 9162596892LL, 9162596893LL, 4611686018427387903LL})},
  });
}

inline double DoubleFromBits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Every value of the BloomCalculations table and both neighbouring doubles.
inline std::vector<double> TableProbabilitiesAndNeighbours() {
  std::vector<double> out;
  for (int b = 0; b <= cassandra::kMaxBucketsPerElement; ++b) {
    for (double p : cassandra::BloomProbabilities(b)) {
      out.push_back(p);
      out.push_back(std::nextafter(p, 0.0));
      out.push_back(std::nextafter(p, 2.0));
    }
  }
  return out;
}

// False-positive chances: the table and its neighbours, ordinary and absurd values, any double.
inline rc::Gen<double> FpChance() {
  return gen::weightedOneOf<double>({
      {3, gen::elementOf(TableProbabilitiesAndNeighbours())},
      {3, gen::map(gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 53),
                   [](std::uint64_t u) { return static_cast<double>(u) / 9007199254740992.0; })},
      {3, gen::map(gen::inRange<std::uint64_t>(0, 1u << 30),
                   [](std::uint64_t u) {
                     return std::pow(10.0, -12.0 * static_cast<double>(u) / (1u << 30));
                   })},
      {1, gen::map(UniformU64(), DoubleFromBits)},
      // Large magnitudes, where JDK <= 18 Double.toString (Cassandra's JVMs, and the golden
      // data's JDK 17) prints more digits than the shortest form, e.g. -9.999999999999999E22.
      {1, gen::map(gen::inRange(0, 1 << 20),
                   [](int u) { return -std::pow(10.0, 15.0 + 290.0 * u / (1 << 20)); })},
      {1, gen::elementOf(std::vector<double>{0.0,
                                             -0.0,
                                             1.0,
                                             std::nextafter(1.0, 2.0),
                                             2.0,
                                             -0.5,
                                             0.393,
                                             6.71e-5,
                                             6.7e-5,
                                             std::numeric_limits<double>::quiet_NaN(),
                                             std::numeric_limits<double>::infinity(),
                                             -std::numeric_limits<double>::infinity(),
                                             std::numeric_limits<double>::denorm_min(),
                                             std::numeric_limits<double>::min(),
                                             std::numeric_limits<double>::max(),
                                             1e-300,
                                             1e21,
                                             1e-3,
                                             1e7,
                                             1.0e-7,
                                             123456789.0,
                                             0.001,
                                             -1.0e23,
                                             -2.82879384806159e17,
                                             DoubleFromBits(0xc350000100000000)})},
  });
}

// Fp chances for building whole filters: ordinary ones, the table, and a few refusals. (The
// printing of absurd values in refusal texts is the sizing properties' business.)
inline rc::Gen<double> FilterFpChance() {
  return gen::weightedOneOf<double>({
      {8, gen::map(gen::inRange(0, 1 << 20),
                   [](int u) { return std::pow(10.0, -4.2 * u / (1 << 20)); })},
      {2, gen::elementOf(TableProbabilitiesAndNeighbours())},
      {1, gen::elementOf(std::vector<double>{0.0, -0.0, 1.0, 2.0, 0.393, 6.71e-5, 6.7e-5, 1e-5,
                                             std::numeric_limits<double>::quiet_NaN()})},
  });
}

inline rc::Gen<std::int32_t> TargetBuckets() {
  return gen::weightedOneOf<std::int32_t>({
      {4, gen::inRange<std::int32_t>(-3, 26)},
      {1, UniformI32()},
      {1, gen::elementOf(std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(),
                                                   std::numeric_limits<std::int32_t>::max(), 0, 4,
                                                   15, 20, 21, 100})},
  });
}

}  // namespace bloomcodec::testing
