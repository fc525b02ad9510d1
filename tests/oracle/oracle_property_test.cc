// C++ against a real JVM, part 1: hashes, bucket indices and sizing. RapidCheck generates
// cases, the Java oracle (Java's own types and library) answers them in batches, and every answer
// must be equal. Each property prints how many generated cases agreed; a failure names the
// smallest disagreeing input RapidCheck found. Part 2: oracle_filter_property_test.cc.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/murmur_hash.h"
#include "bloomcodec/cassandra/sizing.h"
#include "oracle/oracle_property_support.h"

namespace bloomcodec::testing {
namespace {

namespace cs = bloomcodec::cassandra;

// ---------------------------------------------------------------------------------- hashes

struct Hash64Case {
  ByteVector key;
  std::int64_t seed;
};
void showValue(const Hash64Case& c, std::ostream& os) {
  os << "key " << Hex(c.key) << " seed " << c.seed;
}

TEST(JavaOracle, Hash64AgreesForArbitraryBytesAndSeeds) {
  std::int64_t agreed = 0;
  CheckAndCount("hash64", agreed, [&] {
    auto cases =
        *Batch(kHashBatch, gen::build<Hash64Case>(gen::set(&Hash64Case::key, HashKey()),
                                                  gen::set(&Hash64Case::seed, HashSeed64())));
    OracleRequest request(OracleOp::kHash64);
    for (const auto& c : cases) {
      request.Bytes(c.key);
      request.I64(c.seed);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    for (const auto& c : cases) {
      std::int64_t java = a.I64();
      std::int64_t ours = cs::MurmurHash64(c.key, c.seed);
      if (a.ok() && java != ours) {
        RC_FAIL("hash64(key " + Hex(c.key) + ", seed " + std::to_string(c.seed) + "): C++ " +
                std::to_string(ours) + ", JVM " + std::to_string(java));
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

struct Hash32Case {
  ByteVector key;
  std::int32_t seed;
};
void showValue(const Hash32Case& c, std::ostream& os) {
  os << "key " << Hex(c.key) << " seed " << c.seed;
}

TEST(JavaOracle, Hash32AgreesForArbitraryBytesAndSeeds) {
  std::int64_t agreed = 0;
  CheckAndCount("hash32", agreed, [&] {
    auto cases =
        *Batch(kHashBatch, gen::build<Hash32Case>(gen::set(&Hash32Case::key, HashKey()),
                                                  gen::set(&Hash32Case::seed, HashSeed32())));
    OracleRequest request(OracleOp::kHash32);
    for (const auto& c : cases) {
      request.Bytes(c.key);
      request.I32(c.seed);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    for (const auto& c : cases) {
      std::int32_t java = a.I32();
      std::int32_t ours = cs::MurmurHash32(c.key, c.seed);
      if (a.ok() && java != ours) {
        RC_FAIL("hash32(key " + Hex(c.key) + ", seed " + std::to_string(c.seed) + "): C++ " +
                std::to_string(ours) + ", JVM " + std::to_string(java));
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- buckets

struct Bucket64Case {
  ByteVector key;
  std::int32_t hash_count;
  std::int64_t max;
};
void showValue(const Bucket64Case& c, std::ostream& os) {
  os << "key " << Hex(c.key) << " K " << c.hash_count << " max " << c.max;
}

TEST(JavaOracle, BucketIndicesAgreeForArbitraryHashAndBitCounts) {
  std::int64_t agreed = 0;
  CheckAndCount("buckets64", agreed, [&] {
    auto cases =
        *Batch(kBucketBatch,
               gen::build<Bucket64Case>(gen::set(&Bucket64Case::key, FilterKey()),
                                        gen::set(&Bucket64Case::hash_count, gen::inRange(0, 65)),
                                        gen::set(&Bucket64Case::max, BucketModulus64())));
    OracleRequest request(OracleOp::kBuckets64);
    for (const auto& c : cases) {
      request.Bytes(c.key);
      request.I32(c.hash_count);
      request.I64(c.max);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::array<std::int64_t, 64> ours{};
    for (const auto& c : cases) {
      cs::HashBuckets(c.key, c.hash_count, c.max, ours);
      for (int i = 0; i < c.hash_count; ++i) {
        std::int64_t java = a.I64();
        if (a.ok() && java != ours[static_cast<std::size_t>(i)]) {
          RC_FAIL("HashBuckets(key " + Hex(c.key) + ", K " + std::to_string(c.hash_count) +
                  ", max " + std::to_string(c.max) + ")[" + std::to_string(i) + "]: C++ " +
                  std::to_string(ours[static_cast<std::size_t>(i)]) + ", JVM " +
                  std::to_string(java));
        }
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

struct Bucket32Case {
  ByteVector key;
  std::int32_t hash_count;
  std::int32_t max;
};
void showValue(const Bucket32Case& c, std::ostream& os) {
  os << "key " << Hex(c.key) << " K " << c.hash_count << " max " << c.max;
}

TEST(JavaOracle, LegacyBucketIndicesAgreeForArbitraryHashAndBitCounts) {
  std::int64_t agreed = 0;
  CheckAndCount("legacy buckets", agreed, [&] {
    auto cases =
        *Batch(kBucketBatch,
               gen::build<Bucket32Case>(gen::set(&Bucket32Case::key, FilterKey()),
                                        gen::set(&Bucket32Case::hash_count, gen::inRange(0, 65)),
                                        gen::set(&Bucket32Case::max, BucketModulus32())));
    OracleRequest request(OracleOp::kBuckets32);
    for (const auto& c : cases) {
      request.Bytes(c.key);
      request.I32(c.hash_count);
      request.I32(c.max);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::array<std::int32_t, 64> ours{};
    for (const auto& c : cases) {
      cs::LegacyHashBuckets(c.key, c.hash_count, c.max, ours);
      for (int i = 0; i < c.hash_count; ++i) {
        std::int32_t java = a.I32();
        if (a.ok() && java != ours[static_cast<std::size_t>(i)]) {
          RC_FAIL("LegacyHashBuckets(key " + Hex(c.key) + ", K " + std::to_string(c.hash_count) +
                  ", max " + std::to_string(c.max) + ")[" + std::to_string(i) + "]: C++ " +
                  std::to_string(ours[static_cast<std::size_t>(i)]) + ", JVM " +
                  std::to_string(java));
        }
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- sizing

// The refusal texts print the fp chance with Java's Double.toString; the JVM in use (JDK 17,
// like the golden data's; JDKs before 19 print like Cassandra's Java 6) is the judge of its
// digits. Besides fp chances, the doubles cover every branch of the pre-19 algorithm: integers
// of every magnitude (exact below 2^53, rounded-off low digits from 2^54, the big-integer loop
// from 2^63), powers of two and ten and the doubles around them (the asymmetric ulp, exponent
// estimates one too high), subnormals and tiny values, the 1e-3 and 1e7 layout boundaries,
// short decimals (the last-digit rounding) and uniformly random bit patterns.
constexpr std::size_t kDoubleBatch = 2000;

// d moved by `ulps` representable doubles away from (positive) or towards (negative) zero,
// stopping at zero and infinity.
double StepUlps(double d, int ulps) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  const std::uint64_t sign = bits & (std::uint64_t{1} << 63);
  std::int64_t magnitude = static_cast<std::int64_t>(bits & ~sign) + ulps;
  magnitude = std::clamp<std::int64_t>(magnitude, 0, 0x7ff0000000000000);
  return DoubleFromBits(sign | static_cast<std::uint64_t>(magnitude));
}

// An integer-valued double with its leading bit at 2^exponent: the bits below the binary point
// are cleared.
double IntegerDouble(int exponent, std::uint64_t fraction) {
  fraction &= (std::uint64_t{1} << 52) - 1;
  if (exponent < 52) fraction &= ~((std::uint64_t{1} << (52 - exponent)) - 1);
  return DoubleFromBits((static_cast<std::uint64_t>(exponent + 1023) << 52) | fraction);
}

rc::Gen<double> ToStringDouble() {
  auto with_sign = [](rc::Gen<double> g) {
    return gen::map(gen::pair(std::move(g), gen::arbitrary<bool>()),
                    [](const std::pair<double, bool>& p) { return p.second ? -p.first : p.first; });
  };
  auto around = [](rc::Gen<double> centre, int max_ulps) {
    return gen::map(gen::pair(std::move(centre), gen::inRange(-max_ulps, max_ulps + 1)),
                    [](const std::pair<double, int>& p) { return StepUlps(p.first, p.second); });
  };
  // Integers: mostly up to 2^70 (the exact, rounded-off and big-integer regimes meet at
  // 2^53, 2^54 and 2^63), then every binary exponent up to the largest double.
  auto integers = gen::map(
      gen::pair(gen::weightedOneOf<int>({{3, gen::inRange(0, 71)}, {1, gen::inRange(0, 1024)}}),
                UniformU64()),
      [](const std::pair<int, std::uint64_t>& p) { return IntegerDouble(p.first, p.second); });
  auto powers_of_two =
      gen::map(gen::inRange(-1074, 1024), [](int e) { return std::ldexp(1.0, e); });
  // strtod gives the double nearest to 10^e, as Java's literal 1e<e> does.
  auto powers_of_ten = gen::map(gen::inRange(-323, 309), [](int e) {
    return std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
  });
  auto subnormals =
      gen::map(gen::inRange<std::uint64_t>(1, std::uint64_t{1} << 52), DoubleFromBits);
  // Below 1e-3 (binary exponent -10) down to the smallest normal, uniform in the exponent.
  auto tiny = gen::map(gen::pair(gen::inRange<std::uint64_t>(1, 1013), UniformU64()),
                       [](const std::pair<std::uint64_t, std::uint64_t>& p) {
                         return DoubleFromBits((p.first << 52) | (p.second >> 12));
                       });
  auto layout_boundaries = gen::weightedOneOf<double>({
      {1, around(gen::element(1e-3, 1e7), 2000)},
      {1, gen::map(gen::inRange(0, 1 << 20), [](int u) { return 0.00099 + 2e-5 * u / (1 << 20); })},
      {1, gen::map(gen::inRange(0, 1 << 20), [](int u) { return 9.99e6 + 2e4 * u / (1 << 20); })},
  });
  // d digits times a power of ten, rounded to the nearest double by strtod.
  auto short_decimals =
      gen::map(gen::tuple(gen::inRange(1, 18), UniformU64(), gen::inRange(-340, 309)),
               [](const std::tuple<int, std::uint64_t, int>& t) {
                 std::uint64_t limit = 1;
                 for (int i = 0; i < std::get<0>(t); ++i) limit *= 10;
                 std::string text =
                     std::to_string(std::get<1>(t) % limit) + "e" + std::to_string(std::get<2>(t));
                 return std::strtod(text.c_str(), nullptr);
               });
  return gen::weightedOneOf<double>({
      {3, FpChance()},
      {3, with_sign(integers)},
      {2, with_sign(around(gen::oneOf(powers_of_two, powers_of_ten), 3))},
      {1, with_sign(subnormals)},
      {1, with_sign(tiny)},
      {1, with_sign(layout_boundaries)},
      {2, with_sign(short_decimals)},
      {2, gen::map(UniformU64(), DoubleFromBits)},
  });
}

// How many significant digits a Java rendering has ("1.2300E-5" and "0.0123" have 5 and 3).
int JavaSignificantDigits(const std::string& text) {
  std::string digits;
  for (char c : text.substr(0, text.find('E'))) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  const auto last = digits.find_last_not_of('0');
  return static_cast<int>(last - first + 1);
}

// How many significant digits the shortest round-trip rendering has (what JDK 19+ prints,
// apart from its two-digit minimum).
int ShortestSignificantDigits(double d) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  std::string text(buf, res.ptr);
  text.resize(text.find('e'));  // "1.25e-05" -> "1.25", Java's digits before its 'E'
  return JavaSignificantDigits(text);
}

TEST(JavaOracle, JavaDoubleToStringAgreesWithTheJdk) {
  std::int64_t agreed = 0, longer_than_shortest = 0;
  CheckAndCount("Double.toString", agreed, [&] {
    // No shrinking: the message names the first disagreeing double's bits already, and walking
    // the shrink tree of a fixed-size batch takes minutes.
    auto cases = *gen::noShrink(Batch(kDoubleBatch, ToStringDouble()));
    OracleRequest request(OracleOp::kDoubleToString);
    for (double d : cases) {
      request.F64(d);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::int64_t batch_longer = 0;
    for (double d : cases) {
      std::string java = a.Utf();
      std::string ours = cs::JavaDoubleToString(d);
      if (a.ok() && java != ours) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
        RC_FAIL("JavaDoubleToString(double with bits 0x" + std::string(hex) + "): C++ \"" + ours +
                "\", JDK \"" + java + "\"");
      }
      if (std::isfinite(d) && d != 0 &&
          JavaSignificantDigits(java) > ShortestSignificantDigits(d)) {
        ++batch_longer;
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
    longer_than_shortest += batch_longer;
  });
  // Evidence that the pre-19 digits were exercised: JDK 19+ would print fewer digits for these.
  std::cout << "Double.toString: " << longer_than_shortest
            << " of them with more significant digits than the shortest round-trip form\n";
  EXPECT_GT(longer_than_shortest, 0);
}

struct SizingCase {
  SizeKind kind;
  bool assertions;
  std::int64_t n;
  double fp;
  std::int32_t target;
};

std::string Describe(const SizingCase& c) {
  static const char* kNames[] = {"getFilter(n, fp)", "getFilter(n, buckets)",
                                 "LegacyBloomFilter.getFilter(n, fp)",
                                 "LegacyBloomFilter.getFilter(n, buckets)"};
  std::string s = kNames[static_cast<int>(c.kind)];
  s += " n=" + std::to_string(c.n);
  bool fp = c.kind == SizeKind::kV10Fp || c.kind == SizeKind::kLegacyFp;
  s += fp ? " fp=" + cs::JavaDoubleToString(c.fp) : " target=" + std::to_string(c.target);
  s += c.assertions ? " (-ea)" : " (-da)";
  return s;
}

void showValue(const SizingCase& c, std::ostream& os) { os << Describe(c); }

// The C++ sizing result in the oracle's terms.
struct OurSizing {
  Status status;
  std::int32_t hash_count = 0, bpe = 0, words = 0;
  std::int64_t bits = 0;
  std::string warning;
};

OurSizing SizeOurs(const SizingCase& c) {
  auto a = c.assertions ? cs::JavaAssertions::kEnabled : cs::JavaAssertions::kDisabled;
  OurSizing o;
  auto take_v10 = [&](const Result<cs::FilterSpec>& r) {
    if (!r.ok()) return void(o.status = r.status());
    o.hash_count = r->hash_count;
    o.bpe = r->buckets_per_element;
    o.bits = r->requested_bits;
    o.words = r->word_count;
    o.warning = r->warning;
  };
  auto take_legacy = [&](const Result<cs::LegacyFilterSpec>& r) {
    if (!r.ok()) return void(o.status = r.status());
    o.hash_count = r->hash_count;
    o.bpe = r->buckets_per_element;
    o.bits = r->nbits;
    o.words = r->word_count;
    o.warning = r->warning;
  };
  switch (c.kind) {
    case SizeKind::kV10Fp: take_v10(cs::SizeForFpChance(c.n, c.fp, a)); break;
    case SizeKind::kV10Buckets: take_v10(cs::SizeForBucketsPerElement(c.n, c.target, a)); break;
    case SizeKind::kLegacyFp: take_legacy(cs::LegacySizeForFpChance(c.n, c.fp, a)); break;
    case SizeKind::kLegacyBuckets:
      take_legacy(cs::LegacySizeForBucketsPerElement(c.n, c.target, a));
      break;
  }
  return o;
}

TEST(JavaOracle, SizingAgreesForArbitraryCountsAndProbabilitiesIncludingRefusals) {
  std::int64_t agreed = 0, refusals = 0, warnings = 0;
  CheckAndCount("sizing", agreed, [&] {
    auto cases = *Batch(
        kSizingBatch,
        gen::build<SizingCase>(
            gen::set(&SizingCase::kind,
                     gen::element(SizeKind::kV10Fp, SizeKind::kV10Buckets, SizeKind::kLegacyFp,
                                  SizeKind::kLegacyBuckets)),
            gen::set(&SizingCase::assertions, gen::weightedElement<bool>({{3, true}, {1, false}})),
            gen::set(&SizingCase::n, ElementCount()), gen::set(&SizingCase::fp, FpChance()),
            gen::set(&SizingCase::target, TargetBuckets())));
    OracleRequest request(OracleOp::kSize);
    for (const auto& c : cases) {
      request.U8(static_cast<std::uint8_t>(c.kind));
      request.U8(c.assertions ? 1 : 0);
      request.I64(c.n);
      request.F64(c.fp);
      request.I32(c.target);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::int64_t batch_refusals = 0, batch_warnings = 0;
    for (const auto& c : cases) {
      std::string outcome = a.Utf();
      OurSizing ours = SizeOurs(c);
      if (!a.ok()) break;
      if (outcome != "OK") {
        ++batch_refusals;
        if (ours.status.ok())
          RC_FAIL(Describe(c) + ": JVM refuses with \"" + outcome + "\", C++ accepts");
        if (ours.status.message() != outcome || ours.status.code() != StatusCode::kRefused) {
          RC_FAIL(Describe(c) + ": JVM refuses with \"" + outcome + "\", C++ with " +
                  std::string(StatusCodeName(ours.status.code())) + " \"" + ours.status.message() +
                  "\"");
        }
        continue;
      }
      std::int32_t k = a.I32(), bpe = a.I32();
      std::int64_t bits = a.I64();
      std::int32_t words = a.I32();
      std::string warning = a.Utf();
      if (!a.ok()) break;
      if (!ours.status.ok())
        RC_FAIL(Describe(c) + ": JVM accepts, C++ refuses: " + ours.status.ToString());
      bool legacy = c.kind == SizeKind::kLegacyFp || c.kind == SizeKind::kLegacyBuckets;
      // Legacy: the JVM reports -1 words when nbits < 0 (new BitSet throws there).
      bool words_agree = legacy && words < 0 ? ours.words <= 0 : ours.words == words;
      if (ours.hash_count != k || ours.bpe != bpe || ours.bits != bits || !words_agree ||
          ours.warning != warning) {
        RC_FAIL(Describe(c) + ": JVM K=" + std::to_string(k) + " bpe=" + std::to_string(bpe) +
                " bits=" + std::to_string(bits) + " words=" + std::to_string(words) +
                " warning=\"" + warning + "\"; C++ K=" + std::to_string(ours.hash_count) +
                " bpe=" + std::to_string(ours.bpe) + " bits=" + std::to_string(ours.bits) +
                " words=" + std::to_string(ours.words) + " warning=\"" + ours.warning + "\"");
      }
      if (!warning.empty()) ++batch_warnings;
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
    refusals += batch_refusals;
    warnings += batch_warnings;
  });
  std::cout << "sizing: " << refusals << " of them refusals, " << warnings << " with a warning\n";
}

}  // namespace
}  // namespace bloomcodec::testing
