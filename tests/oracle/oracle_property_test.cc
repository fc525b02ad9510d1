// C++ against a real JVM: RapidCheck generates cases, the Java oracle (Java's own types and
// library) answers them in batches, and every answer must be equal. Each property prints how
// many generated cases agreed. A failure names the smallest disagreeing input RapidCheck found.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/filter_db.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/murmur_hash.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "oracle/jvm_oracle.h"
#include "oracle/oracle_generators.h"

namespace bloomcodec::testing {
namespace {

namespace cs = bloomcodec::cassandra;

// Batch sizes: RapidCheck runs each property 100 times (RC_PARAMS may change that).
constexpr std::size_t kHashBatch = 400;
constexpr std::size_t kBucketBatch = 1000;
constexpr std::size_t kSizingBatch = 1000;
constexpr std::size_t kFilterBatch = 8;

template <typename T>
rc::Gen<std::vector<T>> Batch(std::size_t n, rc::Gen<T> one) {
  return gen::resize(100, gen::container<std::vector<T>>(n, std::move(one)));
}

// Sends the batch; a dead or refusing JVM fails the property with its message. Once the JVM is
// gone, RapidCheck's shrink attempts are discarded: none of them can say anything more.
OracleAnswers Ask(const OracleRequest& request) {
  JvmOracle& oracle = JvmOracle::Shared();
  if (oracle.failed()) RC_DISCARD("the java oracle is gone");
  auto answer = oracle.Call(request);
  if (!answer.ok()) RC_FAIL(answer.status().ToString());
  return OracleAnswers(std::move(*answer));
}

void ExpectConsumed(const OracleAnswers& a) {
  if (!a.ok()) RC_FAIL("oracle answer unreadable: " + a.error());
  if (!a.at_end()) RC_FAIL("oracle answered more than asked");
}

KeyList ToKeyList(const std::vector<ByteVector>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

std::string Hex(ByteSpan b) { return b.empty() ? "<empty>" : ToHex(b); }

std::string FirstDifference(ByteSpan ours, ByteSpan java) {
  std::size_t i = 0;
  while (i < ours.size() && i < java.size() && ours[i] == java[i]) ++i;
  return "lengths " + std::to_string(ours.size()) + " (C++) / " + std::to_string(java.size()) +
         " (JVM), first difference at byte " + std::to_string(i);
}

// Runs `property` under RapidCheck inside this gtest and prints how many cases agreed.
template <typename Property>
void CheckAndCount(const char* name, std::int64_t& agreed, Property property) {
  ASSERT_FALSE(JvmOracle::Shared().failed()) << JvmOracle::Shared().failure();
  ::rc::detail::checkGTest(property);
  std::cout << name << ": " << agreed << " cases agreed\n";
  EXPECT_GT(agreed, 0);
}

// ---------------------------------------------------------------------------------- hashes

struct Hash64Case {
  ByteVector key;
  std::int64_t seed;
};
void showValue(const Hash64Case& c, std::ostream& os) { os << "key " << Hex(c.key) << " seed " << c.seed; }

TEST(JavaOracle, Hash64AgreesForArbitraryBytesAndSeeds) {
  std::int64_t agreed = 0;
  CheckAndCount("hash64", agreed, [&] {
    auto cases = *Batch(kHashBatch, gen::build<Hash64Case>(gen::set(&Hash64Case::key, HashKey()),
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
void showValue(const Hash32Case& c, std::ostream& os) { os << "key " << Hex(c.key) << " seed " << c.seed; }

TEST(JavaOracle, Hash32AgreesForArbitraryBytesAndSeeds) {
  std::int64_t agreed = 0;
  CheckAndCount("hash32", agreed, [&] {
    auto cases = *Batch(kHashBatch, gen::build<Hash32Case>(gen::set(&Hash32Case::key, HashKey()),
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
    auto cases = *Batch(kBucketBatch,
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
                  std::to_string(ours[static_cast<std::size_t>(i)]) + ", JVM " + std::to_string(java));
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
    auto cases = *Batch(kBucketBatch,
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
                  std::to_string(ours[static_cast<std::size_t>(i)]) + ", JVM " + std::to_string(java));
        }
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- sizing

// The refusal texts print the fp chance with Java's Double.toString; the JVM in use (JDK 17,
// like the golden data's, and like Cassandra's Java 6) is the judge of its digits.
TEST(JavaOracle, JavaDoubleToStringAgreesWithTheJdk) {
  std::int64_t agreed = 0;
  CheckAndCount("Double.toString", agreed, [&] {
    auto cases = *Batch(kSizingBatch, FpChance());
    OracleRequest request(OracleOp::kDoubleToString);
    for (double d : cases) {
      request.F64(d);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
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
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
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
  bool fp = c.kind == SizeKind::kCurrentFp || c.kind == SizeKind::kLegacyFp;
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
  auto take_current = [&](const Result<cs::FilterSpec>& r) {
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
    case SizeKind::kCurrentFp: take_current(cs::SizeForFpChance(c.n, c.fp, a)); break;
    case SizeKind::kCurrentBuckets: take_current(cs::SizeForBucketsPerElement(c.n, c.target, a)); break;
    case SizeKind::kLegacyFp: take_legacy(cs::LegacySizeForFpChance(c.n, c.fp, a)); break;
    case SizeKind::kLegacyBuckets: take_legacy(cs::LegacySizeForBucketsPerElement(c.n, c.target, a)); break;
  }
  return o;
}

TEST(JavaOracle, SizingAgreesForArbitraryCountsAndProbabilitiesIncludingRefusals) {
  std::int64_t agreed = 0, refusals = 0, warnings = 0;
  CheckAndCount("sizing", agreed, [&] {
    auto cases = *Batch(kSizingBatch,
                        gen::build<SizingCase>(
                            gen::set(&SizingCase::kind, gen::element(SizeKind::kCurrentFp, SizeKind::kCurrentBuckets,
                                                                     SizeKind::kLegacyFp, SizeKind::kLegacyBuckets)),
                            gen::set(&SizingCase::assertions, gen::weightedElement<bool>({{3, true}, {1, false}})),
                            gen::set(&SizingCase::n, ElementCount()),
                            gen::set(&SizingCase::fp, FpChance()),
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
        if (ours.status.ok()) RC_FAIL(Describe(c) + ": JVM refuses with \"" + outcome + "\", C++ accepts");
        if (ours.status.message() != outcome || ours.status.code() != StatusCode::kRefused) {
          RC_FAIL(Describe(c) + ": JVM refuses with \"" + outcome + "\", C++ with " +
                  std::string(StatusCodeName(ours.status.code())) + " \"" + ours.status.message() + "\"");
        }
        continue;
      }
      std::int32_t k = a.I32(), bpe = a.I32();
      std::int64_t bits = a.I64();
      std::int32_t words = a.I32();
      std::string warning = a.Utf();
      if (!a.ok()) break;
      if (!ours.status.ok()) RC_FAIL(Describe(c) + ": JVM accepts, C++ refuses: " + ours.status.ToString());
      bool legacy = c.kind == SizeKind::kLegacyFp || c.kind == SizeKind::kLegacyBuckets;
      // Legacy: the JVM reports -1 words when nbits < 0 (new BitSet throws there).
      bool words_agree = legacy && words < 0 ? ours.words <= 0 : ours.words == words;
      if (ours.hash_count != k || ours.bpe != bpe || ours.bits != bits || !words_agree ||
          ours.warning != warning) {
        RC_FAIL(Describe(c) + ": JVM K=" + std::to_string(k) + " bpe=" + std::to_string(bpe) +
                " bits=" + std::to_string(bits) + " words=" + std::to_string(words) + " warning=\"" +
                warning + "\"; C++ K=" + std::to_string(ours.hash_count) + " bpe=" +
                std::to_string(ours.bpe) + " bits=" + std::to_string(ours.bits) + " words=" +
                std::to_string(ours.words) + " warning=\"" + ours.warning + "\"");
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

// ---------------------------------------------------------------------------------- filters

struct BuildCase {
  BuildKind kind;
  std::int64_t n_sized;
  double fp;
  std::int32_t target;
  std::vector<ByteVector> keys;
  std::vector<ByteVector> probes;
};

std::string Describe(const BuildCase& c) {
  std::string s = c.kind == BuildKind::kFp ? "fp " + cs::JavaDoubleToString(c.fp)
                : c.kind == BuildKind::kBuckets ? "buckets " + std::to_string(c.target)
                                                : std::string("emptyFilter");
  s += ", sized for " + std::to_string(c.n_sized) + ", keys [";
  for (std::size_t i = 0; i < c.keys.size(); ++i) s += (i ? "," : "") + Hex(c.keys[i]);
  return s + "]";
}
void showValue(const BuildCase& c, std::ostream& os) { os << Describe(c); }

// Key counts near the size the filter was made for, sometimes beyond it (an over-full filter).
rc::Gen<BuildCase> BuildCaseGen(bool allow_empty_filter, std::int64_t max_sized) {
  return gen::mapcat(
      gen::tuple(gen::inRange<std::int64_t>(0, max_sized + 1), gen::inRange(0, 100)),
      [=](const std::tuple<std::int64_t, int>& t) {
        std::int64_t n = std::get<0>(t);
        int mode = std::get<1>(t);
        std::size_t max_keys = mode < 70 ? static_cast<std::size_t>(std::min<std::int64_t>(n, 400))
                                         : static_cast<std::size_t>(std::min<std::int64_t>(2 * n + 10, 800));
        BuildKind kind = allow_empty_filter && mode >= 97 ? BuildKind::kEmptyFilter
                         : mode % 3 == 0                 ? BuildKind::kFp
                                                         : BuildKind::kBuckets;
        return gen::build<BuildCase>(
            gen::set(&BuildCase::kind, gen::just(kind)), gen::set(&BuildCase::n_sized, gen::just(n)),
            gen::set(&BuildCase::fp,
                     gen::weightedOneOf<double>({{9, gen::map(gen::inRange(0, 1 << 20),
                                                              [](int u) { return std::pow(10.0, -4.2 * u / (1 << 20)); })},
                                                 {1, FpChance()}})),
            gen::set(&BuildCase::target, gen::weightedOneOf<std::int32_t>(
                                             {{8, gen::inRange(1, 21)}, {1, gen::just(15)}, {1, TargetBuckets()}})),
            gen::set(&BuildCase::keys,
                     gen::mapcat(gen::inRange<std::size_t>(0, max_keys + 1),
                                 [](std::size_t k) { return gen::container<std::vector<ByteVector>>(k, FilterKey()); })),
            gen::set(&BuildCase::probes, gen::container<std::vector<ByteVector>>(200, FilterKey())));
      });
}

Result<cs::FilterSpec> OurSpec(const BuildCase& c) {
  return c.kind == BuildKind::kFp ? cs::SizeForFpChance(c.n_sized, c.fp)
                                  : cs::SizeForBucketsPerElement(c.n_sized, c.target);
}

void RequestBuild(OracleRequest& request, const BuildCase& c) {
  request.U8(static_cast<std::uint8_t>(c.kind));
  request.I64(c.n_sized);
  request.F64(c.fp);
  request.I32(c.target);
  request.Keys(ToKeyList(c.keys));
  request.EndCase();
}

// Probes `file` in the JVM (deserialized by the Java reader) and in C++; all answers must agree
// and every inserted key must be present.
template <typename Parsed>
void CompareProbes(OracleOp op, const std::vector<ByteVector>& files, const std::vector<const BuildCase*>& cases,
                   const char* what) {
  OracleRequest request(op);
  std::vector<KeyList> probes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    KeyList keys = ToKeyList(cases[i]->probes);
    for (const auto& k : cases[i]->keys) keys.Add(ByteSpan(k));
    request.Bytes(files[i]);
    request.Keys(keys);
    request.EndCase();
    probes.push_back(std::move(keys));
  }
  OracleAnswers a = Ask(request);
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string outcome = a.Utf();
    if (outcome != "OK") RC_FAIL(std::string(what) + ": the JVM cannot read it: " + outcome + "; " + Describe(*cases[i]));
    std::int32_t k = a.I32(), w = a.I32();
    auto parsed = Parsed::Parse(files[i], what);
    if (!parsed.ok()) RC_FAIL(std::string(what) + ": C++ cannot read it: " + parsed.status().ToString());
    if (parsed->signed_hash_count() != k || parsed->word_count() != w) {
      RC_FAIL(std::string(what) + ": header K/W: JVM " + std::to_string(k) + "/" + std::to_string(w) +
              ", C++ " + std::to_string(parsed->signed_hash_count()) + "/" + std::to_string(parsed->word_count()));
    }
    std::vector<std::uint8_t> ours(probes[i].size());
    parsed->MayContainBatch(probes[i], ours);
    for (std::size_t p = 0; p < probes[i].size(); ++p) {
      std::uint8_t java = a.U8();
      if (!a.ok()) break;
      if (java != ours[p] || (p >= cases[i]->probes.size() && java != 1)) {
        RC_FAIL(std::string(what) + ": isPresent(" + Hex(probes[i][p]) + "): JVM " + std::to_string(java) +
                ", C++ " + std::to_string(ours[p]) + "; " + Describe(*cases[i]));
      }
    }
  }
  ExpectConsumed(a);
}

TEST(JavaOracle, FilterDbBytesAndAnswersAgreeForRandomKeySets) {
  std::int64_t agreed = 0, probes = 0;
  CheckAndCount("Filter.db", agreed, [&] {
    auto cases = *Batch(kFilterBatch, BuildCaseGen(/*allow_empty_filter=*/true, 6000));
    OracleRequest request(OracleOp::kBuildCurrent);
    for (const auto& c : cases) RequestBuild(request, c);
    OracleAnswers a = Ask(request);
    std::vector<ByteVector> files;
    std::vector<const BuildCase*> built;
    for (const auto& c : cases) {
      std::string outcome = a.Utf();
      if (!a.ok()) break;
      if (c.kind == BuildKind::kEmptyFilter) {
        ByteVector java = a.Bytes();
        const cs::FilterDb empty = cs::FilterDb::Empty();
        ByteSpan ours = empty.serialized();
        if (!std::equal(ours.begin(), ours.end(), java.begin(), java.end())) {
          RC_FAIL("emptyFilter bytes differ: " + FirstDifference(ours, java));
        }
        continue;  // nothing was added to it
      }
      auto spec = OurSpec(c);
      if (outcome != "OK") {
        if (spec.ok() || spec.status().message() != outcome) {
          RC_FAIL(Describe(c) + ": JVM refuses with " + outcome + ", C++ " +
                  (spec.ok() ? std::string("accepts") : spec.status().ToString()));
        }
        continue;
      }
      ByteVector java = a.Bytes();
      if (!spec.ok()) RC_FAIL(Describe(c) + ": C++ sizing refuses: " + spec.status().ToString());
      auto ours = cs::BuildFilterDb(ToKeyList(c.keys), *spec);
      if (!ours.ok()) RC_FAIL(Describe(c) + ": BuildFilterDb fails: " + ours.status().ToString());
      if (*ours != java) RC_FAIL(Describe(c) + ": Filter.db bytes differ: " + FirstDifference(*ours, java));
      files.push_back(std::move(java));
      built.push_back(&c);
    }
    ExpectConsumed(a);
    CompareProbes<cs::FilterDb>(OracleOp::kProbeCurrent, files, built, "Filter.db");
    agreed += static_cast<std::int64_t>(cases.size());
    for (const auto* c : built) probes += static_cast<std::int64_t>(c->probes.size() + c->keys.size());
  });
  std::cout << "Filter.db: " << probes << " probe answers agreed\n";
}

// Arbitrary Filter.db contents (any K, W and words, not only what a writer produces): the Java
// reader and ours must give the same answers, false positives included.
struct RawFilterCase {
  std::int32_t hash_count;
  std::vector<std::uint64_t> words;
  std::vector<ByteVector> probes;
};
void showValue(const RawFilterCase& c, std::ostream& os) {
  os << "K " << c.hash_count << ", " << c.words.size() << " words";
}

TEST(JavaOracle, FilterDbAnswersAgreeForArbitraryBitPatterns) {
  std::int64_t agreed = 0;
  CheckAndCount("Filter.db arbitrary bits", agreed, [&] {
    auto cases = *Batch(
        20, gen::build<RawFilterCase>(
                gen::set(&RawFilterCase::hash_count, gen::inRange(0, 21)),
                gen::set(&RawFilterCase::words,
                         gen::mapcat(gen::tuple(gen::inRange<std::size_t>(1, 300), gen::inRange(0, 4)),
                                     [](const std::tuple<std::size_t, int>& t) {
                                       // Density: sparse (AND of 3), half, dense (OR of 3), full.
                                       int density = std::get<1>(t);
                                       return gen::container<std::vector<std::uint64_t>>(
                                           std::get<0>(t),
                                           gen::map(gen::tuple(UniformU64(), UniformU64(), UniformU64()),
                                                    [density](const std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>& w) {
                                                      auto [x, y, z] = w;
                                                      return density == 0   ? x & y & z
                                                             : density == 1 ? x
                                                             : density == 2 ? x | y | z
                                                                            : ~std::uint64_t{0};
                                                    }));
                                     })),
                gen::set(&RawFilterCase::probes, gen::container<std::vector<ByteVector>>(300, FilterKey()))));
    OracleRequest request(OracleOp::kProbeCurrent);
    std::vector<ByteVector> files;
    for (const auto& c : cases) {
      ByteVector file;
      ByteWriter w(file);
      w.PutBigI32(c.hash_count);
      w.PutBigI32(static_cast<std::int32_t>(c.words.size()));
      for (auto word : c.words) w.PutBigU64(word);
      request.Bytes(file);
      request.Keys(ToKeyList(c.probes));
      request.EndCase();
      files.push_back(std::move(file));
    }
    OracleAnswers a = Ask(request);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::string outcome = a.Utf();
      if (outcome != "OK") RC_FAIL("the JVM cannot read a Filter.db: " + outcome);
      a.I32();
      a.I32();
      auto parsed = cs::FilterDb::Parse(files[i], "generated Filter.db");
      if (!parsed.ok()) RC_FAIL(parsed.status().ToString());
      for (const auto& p : cases[i].probes) {
        std::uint8_t java = a.U8();
        if (a.ok() && java != (parsed->MayContain(p) ? 1 : 0)) {
          RC_FAIL("K " + std::to_string(cases[i].hash_count) + ", W " + std::to_string(cases[i].words.size()) +
                  ": isPresent(" + Hex(p) + ") JVM " + std::to_string(java));
        }
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- legacy

Result<cs::LegacyFilterSpec> OurLegacySpec(const BuildCase& c) {
  return c.kind == BuildKind::kFp ? cs::LegacySizeForFpChance(c.n_sized, c.fp)
                                  : cs::LegacySizeForBucketsPerElement(c.n_sized, c.target);
}

TEST(JavaOracle, LegacyFilterBytesAgreeAndTheJdkReadsWhatWeWrite) {
  std::int64_t agreed = 0;
  CheckAndCount("legacy filter", agreed, [&] {
    auto cases = *Batch(kFilterBatch, BuildCaseGen(/*allow_empty_filter=*/false, 6000));
    OracleRequest request(OracleOp::kBuildLegacy);
    for (const auto& c : cases) RequestBuild(request, c);
    OracleAnswers a = Ask(request);
    std::vector<ByteVector> files;
    std::vector<const BuildCase*> built;
    for (const auto& c : cases) {
      std::string outcome = a.Utf();
      if (!a.ok()) break;
      auto spec = OurLegacySpec(c);
      if (outcome != "OK") {
        if (spec.ok() || spec.status().message() != outcome) {
          RC_FAIL(Describe(c) + ": JVM refuses with " + outcome + ", C++ " +
                  (spec.ok() ? std::string("accepts") : spec.status().ToString()));
        }
        continue;
      }
      ByteVector java = a.Bytes();
      if (!spec.ok()) RC_FAIL(Describe(c) + ": C++ legacy sizing refuses: " + spec.status().ToString());
      auto ours = cs::BuildLegacyFilter(ToKeyList(c.keys), *spec);
      if (!ours.ok()) RC_FAIL(Describe(c) + ": BuildLegacyFilter fails: " + ours.status().ToString());
      if (*ours != java) RC_FAIL(Describe(c) + ": legacy bytes differ: " + FirstDifference(*ours, java));
      files.push_back(std::move(*ours));  // what WE wrote goes to the JDK's ObjectInputStream
      built.push_back(&c);
    }
    ExpectConsumed(a);
    CompareProbes<cs::LegacyFilter>(OracleOp::kProbeLegacy, files, built, "legacy filter");
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// Streams the JDK writes for BitSets of every shape: fixed-size ones keep trailing zero words,
// growing ones are trimmed to the highest set bit. Our reader must read them all, answer as the
// JDK-deserialized filter answers, and write the same bytes back.
struct BitSetCase {
  std::int32_t hash_count;
  bool fixed_size;
  std::int32_t nbits;
  std::vector<std::int32_t> set_bits;
  std::vector<ByteVector> probes;
};
void showValue(const BitSetCase& c, std::ostream& os) {
  os << (c.fixed_size ? "new BitSet(" + std::to_string(c.nbits) + ")" : std::string("new BitSet()")) << " bits {";
  for (std::size_t i = 0; i < c.set_bits.size(); ++i) os << (i ? "," : "") << c.set_bits[i];
  os << "} K " << c.hash_count;
}

rc::Gen<BitSetCase> BitSetCaseGen() {
  return gen::mapcat(
      gen::tuple(gen::inRange(1, 40000), gen::inRange(0, 100), gen::inRange(0, 21)),
      [](const std::tuple<int, int, int>& t) {
        auto [nbits, mode, k] = t;
        bool fixed = mode < 70;
        // Where the set bits may fall: all over, or only in the first few words (the last words
        // stay zero), or none at all (fixed size only: a growing BitSet would have no words).
        int limit = mode % 3 == 0 ? std::min(nbits, 64 * (1 + mode % 5)) : nbits;
        int count_max = mode % 7 == 0 ? 3 : 600;
        int count_min = fixed && mode % 10 == 1 ? 0 : 1;
        return gen::build<BitSetCase>(
            gen::set(&BitSetCase::hash_count, gen::just(k)), gen::set(&BitSetCase::fixed_size, gen::just(fixed)),
            gen::set(&BitSetCase::nbits, gen::just(nbits)),
            gen::set(&BitSetCase::set_bits,
                     gen::mapcat(gen::inRange(count_min, count_max + 1),
                                 [=](int count) {
                                   return gen::container<std::vector<std::int32_t>>(
                                       static_cast<std::size_t>(count), gen::inRange(0, limit));
                                 })),
            gen::set(&BitSetCase::probes, gen::container<std::vector<ByteVector>>(100, FilterKey())));
      });
}

TEST(JavaOracle, OurLegacyReaderReadsEveryStreamTheJdkWrites) {
  std::int64_t agreed = 0, trailing_zero_words = 0;
  CheckAndCount("JDK-written legacy streams", agreed, [&] {
    auto cases = *Batch(20, BitSetCaseGen());
    OracleRequest request(OracleOp::kWriteBitSet);
    for (const auto& c : cases) {
      request.I32(c.hash_count);
      request.U8(c.fixed_size ? 1 : 0);
      request.I32(c.nbits);
      request.I32(static_cast<std::int32_t>(c.set_bits.size()));
      for (auto b : c.set_bits) request.I32(b);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::vector<ByteVector> streams;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::string outcome = a.Utf();
      if (outcome != "OK") RC_FAIL("the JDK could not write a BitSet: " + outcome);
      streams.push_back(a.Bytes());
    }
    ExpectConsumed(a);
    // The JDK's own answers for its own stream.
    OracleRequest probe(OracleOp::kProbeLegacy);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      probe.Bytes(streams[i]);
      probe.Keys(ToKeyList(cases[i].probes));
      probe.EndCase();
    }
    OracleAnswers p = Ask(probe);
    std::int64_t batch_trailing = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& c = cases[i];
      std::string what = std::string(c.fixed_size ? "new BitSet(" + std::to_string(c.nbits) + ")" : "new BitSet()") +
                         " with " + std::to_string(c.set_bits.size()) + " bits set, K " + std::to_string(c.hash_count);
      std::string outcome = p.Utf();
      if (outcome != "OK") RC_FAIL(what + ": the JDK cannot read its own stream: " + outcome);
      std::int32_t k = p.I32(), w = p.I32();
      auto ours = cs::LegacyFilter::Parse(streams[i], "JDK stream");
      if (!ours.ok()) RC_FAIL(what + ": our reader refuses the JDK's stream: " + ours.status().ToString());
      if (ours->signed_hash_count() != k || ours->word_count() != w) {
        RC_FAIL(what + ": K/W JDK " + std::to_string(k) + "/" + std::to_string(w) + ", ours " +
                std::to_string(ours->signed_hash_count()) + "/" + std::to_string(ours->word_count()));
      }
      if (ours->Serialize() != streams[i]) RC_FAIL(what + ": re-serialized bytes differ from the JDK's");
      ByteSpan words = ours->words_bytes();
      if (words.size() >= 8 && std::all_of(words.end() - 8, words.end(), [](std::uint8_t b) { return b == 0; })) {
        ++batch_trailing;
      }
      for (const auto& key : c.probes) {
        std::uint8_t java = p.U8();
        if (p.ok() && java != (ours->MayContain(key) ? 1 : 0)) {
          RC_FAIL(what + ": isPresent(" + Hex(key) + "): JDK " + std::to_string(java));
        }
      }
    }
    ExpectConsumed(p);
    agreed += static_cast<std::int64_t>(cases.size());
    trailing_zero_words += batch_trailing;
  });
  std::cout << "JDK-written legacy streams: " << trailing_zero_words << " of them end in a zero word\n";
}

// Filters we create with any word count and fill with any keys: the JDK's ObjectInputStream
// must read our stream, and its BitSet must answer as ours does.
TEST(JavaOracle, TheJdkReadsEveryLegacyStreamWeWrite) {
  std::int64_t agreed = 0;
  CheckAndCount("legacy streams we write", agreed, [&] {
    auto cases = *Batch(
        20, gen::build<BuildCase>(
                gen::set(&BuildCase::n_sized, gen::inRange<std::int64_t>(1, 3000)),  // the word count here
                gen::set(&BuildCase::target, gen::inRange(0, 21)),                    // the hash count here
                gen::set(&BuildCase::keys, gen::mapcat(gen::inRange<std::size_t>(0, 200), [](std::size_t n) {
                           return gen::container<std::vector<ByteVector>>(n, FilterKey());
                         })),
                gen::set(&BuildCase::probes, gen::container<std::vector<ByteVector>>(100, FilterKey()))));
    std::vector<ByteVector> files;
    std::vector<const BuildCase*> built;
    for (auto& c : cases) {
      c.kind = BuildKind::kBuckets;
      auto filter = cs::LegacyFilter::Create(c.target, static_cast<std::int32_t>(c.n_sized));
      if (!filter.ok()) RC_FAIL("LegacyFilter::Create(" + std::to_string(c.target) + ", " +
                                std::to_string(c.n_sized) + "): " + filter.status().ToString());
      for (const auto& k : c.keys) filter->Add(k);
      files.push_back(filter->Serialize());
      built.push_back(&c);
    }
    CompareProbes<cs::LegacyFilter>(OracleOp::kProbeLegacy, files, built, "legacy stream we wrote");
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- row filter

TEST(JavaOracle, RowFilterBytesAndAnswersAgreeForRandomNameSets) {
  std::int64_t agreed = 0;
  CheckAndCount("row filter", agreed, [&] {
    auto cases = *Batch(kFilterBatch * 2, BuildCaseGen(/*allow_empty_filter=*/false, 3000));
    OracleRequest request(OracleOp::kBuildRow);
    for (const auto& c : cases) {
      request.I64(c.n_sized);
      request.Keys(ToKeyList(c.keys));
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    std::vector<ByteVector> rows;
    for (const auto& c : cases) {
      std::string outcome = a.Utf();
      if (outcome != "OK") RC_FAIL("the JVM cannot build a row filter: " + outcome);
      ByteVector java = a.Bytes();
      auto ours = cs::BuildRowFilter(ToKeyList(c.keys), c.n_sized);
      if (!ours.ok()) RC_FAIL("BuildRowFilter(" + std::to_string(c.n_sized) + "): " + ours.status().ToString());
      if (*ours != java) {
        RC_FAIL("row filter, estimated " + std::to_string(c.n_sized) + ", " + std::to_string(c.keys.size()) +
                " names: " + FirstDifference(*ours, java));
      }
      rows.push_back(std::move(java));
    }
    ExpectConsumed(a);
    // Read back the way IndexHelper.defreezeBloomFilter does, current and legacy payloads.
    OracleRequest probe(OracleOp::kProbeRow);
    std::vector<ByteVector> payloads;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      bool legacy = i % 2 == 1;
      ByteVector row = rows[i];
      if (legacy) {
        auto spec = cs::LegacySizeForBucketsPerElement(cases[i].n_sized, cs::kRowFilterBucketsPerElement);
        if (!spec.ok()) RC_FAIL(spec.status().ToString());
        auto filter = cs::BuildLegacyFilter(ToKeyList(cases[i].keys), *spec);
        if (!filter.ok()) RC_FAIL(filter.status().ToString());
        row.clear();
        ByteWriter w(row);
        w.PutBigI32(static_cast<std::int32_t>(filter->size()));
        w.PutBytes(*filter);
      }
      KeyList keys = ToKeyList(cases[i].probes);
      for (const auto& k : cases[i].keys) keys.Add(ByteSpan(k));
      probe.U8(legacy ? 1 : 0);
      probe.Bytes(row);
      probe.Keys(keys);
      probe.EndCase();
      payloads.push_back(std::move(row));
    }
    OracleAnswers p = Ask(probe);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      bool legacy = i % 2 == 1;
      std::string outcome = p.Utf();
      if (outcome != "OK") RC_FAIL("the JVM cannot read a row filter: " + outcome);
      std::int32_t k = p.I32(), w = p.I32();
      auto ours = cs::RowFilter::Parse(payloads[i], "row", legacy);
      if (!ours.ok()) RC_FAIL(ours.status().ToString());
      if (static_cast<std::int32_t>(ours->filter().hash_count()) != k ||
          ours->filter().bit_count() != static_cast<std::uint64_t>(w) * 64) {
        RC_FAIL("row filter K/W differ from the JVM's " + std::to_string(k) + "/" + std::to_string(w));
      }
      KeyList keys = ToKeyList(cases[i].probes);
      for (const auto& key : cases[i].keys) keys.Add(ByteSpan(key));
      for (std::size_t j = 0; j < keys.size(); ++j) {
        std::uint8_t java = p.U8();
        if (p.ok() && java != (ours->filter().MayContain(keys[j]) ? 1 : 0)) {
          RC_FAIL(std::string(legacy ? "legacy " : "") + "row filter: isPresent(" + Hex(keys[j]) + "): JVM " +
                  std::to_string(java));
        }
      }
    }
    ExpectConsumed(p);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

}  // namespace
}  // namespace bloomcodec::testing
