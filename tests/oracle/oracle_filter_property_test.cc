// C++ against a real JVM, part 2: whole filters. Filter.db, legacy and row filters built from
// random key sets must be byte-identical to what the JVM writes (DataOutputStream, the JDK's
// ObjectOutputStream over a java.util.BitSet); the JDK must read what we write and we must read
// what it writes, with the same membership answers, false positives included.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "codec/byte_writer.h"
#include "oracle/oracle_property_support.h"

namespace bloomcodec::testing {
namespace {

namespace cs = bloomcodec::cassandra;

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
  std::string s = c.kind == BuildKind::kFp        ? "fp " + cs::JavaDoubleToString(c.fp)
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
        std::size_t max_keys =
            mode < 70 ? static_cast<std::size_t>(std::min<std::int64_t>(n, 400))
                      : static_cast<std::size_t>(std::min<std::int64_t>(2 * n + 10, 800));
        BuildKind kind = allow_empty_filter && mode >= 97 ? BuildKind::kEmptyFilter
                         : mode % 3 == 0                  ? BuildKind::kFp
                                                          : BuildKind::kBuckets;
        return gen::build<BuildCase>(
            gen::set(&BuildCase::kind, gen::just(kind)),
            gen::set(&BuildCase::n_sized, gen::just(n)), gen::set(&BuildCase::fp, FilterFpChance()),
            gen::set(&BuildCase::target,
                     gen::weightedOneOf<std::int32_t>(
                         {{8, gen::inRange(1, 21)}, {1, gen::just(15)}, {1, TargetBuckets()}})),
            gen::set(&BuildCase::keys, gen::mapcat(gen::inRange<std::size_t>(0, max_keys + 1),
                                                   [](std::size_t k) {
                                                     return gen::container<std::vector<ByteVector>>(
                                                         k, FilterKey());
                                                   })),
            gen::set(&BuildCase::probes,
                     gen::container<std::vector<ByteVector>>(200, FilterKey())));
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
void CompareProbes(OracleOp op, const std::vector<ByteVector>& files,
                   const std::vector<const BuildCase*>& cases, const char* what) {
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
    if (outcome != "OK")
      RC_FAIL(std::string(what) + ": the JVM cannot read it: " + outcome + "; " +
              Describe(*cases[i]));
    std::int32_t k = a.I32(), w = a.I32();
    auto parsed = Parsed::Parse(files[i], what);
    if (!parsed.ok())
      RC_FAIL(std::string(what) + ": C++ cannot read it: " + parsed.status().ToString());
    if (parsed->signed_hash_count() != k || parsed->word_count() != w) {
      RC_FAIL(std::string(what) + ": header K/W: JVM " + std::to_string(k) + "/" +
              std::to_string(w) + ", C++ " + std::to_string(parsed->signed_hash_count()) + "/" +
              std::to_string(parsed->word_count()));
    }
    std::vector<std::uint8_t> ours(probes[i].size());
    parsed->MayContainBatch(probes[i], ours);
    for (std::size_t p = 0; p < probes[i].size(); ++p) {
      std::uint8_t java = a.U8();
      if (!a.ok()) break;
      if (java != ours[p] || (p >= cases[i]->probes.size() && java != 1)) {
        RC_FAIL(std::string(what) + ": isPresent(" + Hex(probes[i][p]) + "): JVM " +
                std::to_string(java) + ", C++ " + std::to_string(ours[p]) + "; " +
                Describe(*cases[i]));
      }
    }
  }
  ExpectConsumed(a);
}

TEST(JavaOracle, FilterDbBytesAndAnswersAgreeForRandomKeySets) {
  std::int64_t agreed = 0, probes = 0;
  CheckAndCount("Filter.db", agreed, [&] {
    auto cases = *Batch(kFilterBatch, BuildCaseGen(/*allow_empty_filter=*/true, 6000));
    OracleRequest request(OracleOp::kBuildV10);
    for (const auto& c : cases) RequestBuild(request, c);
    OracleAnswers a = Ask(request);
    std::vector<ByteVector> files;
    std::vector<const BuildCase*> built;
    for (const auto& c : cases) {
      std::string outcome = a.Utf();
      if (!a.ok()) break;
      if (c.kind == BuildKind::kEmptyFilter) {
        ByteVector java = a.Bytes();
        const cs::V10Filter empty = cs::V10Filter::Empty();
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
      auto ours = cs::BuildV10Filter(ToKeyList(c.keys), *spec);
      if (!ours.ok()) RC_FAIL(Describe(c) + ": BuildV10Filter fails: " + ours.status().ToString());
      if (*ours != java)
        RC_FAIL(Describe(c) + ": Filter.db bytes differ: " + FirstDifference(*ours, java));
      files.push_back(std::move(java));
      built.push_back(&c);
    }
    ExpectConsumed(a);
    CompareProbes<cs::V10Filter>(OracleOp::kProbeV10, files, built, "Filter.db");
    agreed += static_cast<std::int64_t>(cases.size());
    for (const auto* c : built)
      probes += static_cast<std::int64_t>(c->probes.size() + c->keys.size());
  });
  std::cout << "Filter.db: " << probes << " probe answers agreed\n";
}

// Arbitrary Filter.db contents (any K, W and words, not only what a writer produces): the Java
// reader and ours must give the same answers, false positives included.
struct RawFilterCase {
  std::int32_t hash_count;
  std::vector<std::uint64_t> words;
  ByteVector trailing;  // after the words: both readers ignore it
  std::vector<ByteVector> probes;
};
void showValue(const RawFilterCase& c, std::ostream& os) {
  os << "K " << c.hash_count << ", " << c.words.size() << " words, " << c.trailing.size()
     << " trailing bytes";
}

TEST(JavaOracle, FilterDbAnswersAgreeForArbitraryBitPatterns) {
  std::int64_t agreed = 0;
  CheckAndCount("Filter.db arbitrary bits", agreed, [&] {
    auto cases = *Batch(
        20, gen::build<RawFilterCase>(
                gen::set(&RawFilterCase::hash_count, gen::inRange(0, 21)),
                gen::set(&RawFilterCase::words,
                         gen::mapcat(
                             gen::tuple(gen::inRange<std::size_t>(1, 300), gen::inRange(0, 4)),
                             [](const std::tuple<std::size_t, int>& t) {
                               // Density: sparse (AND of 3), half, dense (OR of 3), full.
                               int density = std::get<1>(t);
                               return gen::container<std::vector<std::uint64_t>>(
                                   std::get<0>(t),
                                   gen::map(gen::tuple(UniformU64(), UniformU64(), UniformU64()),
                                            [density](const std::tuple<std::uint64_t, std::uint64_t,
                                                                       std::uint64_t>& w) {
                                              auto [x, y, z] = w;
                                              return density == 0   ? x & y & z
                                                     : density == 1 ? x
                                                     : density == 2 ? x | y | z
                                                                    : ~std::uint64_t{0};
                                            }));
                             })),
                gen::set(&RawFilterCase::trailing,
                         gen::weightedOneOf<ByteVector>(
                             {{3, gen::just(ByteVector{})}, {1, RandomBytes(1, 20)}})),
                gen::set(&RawFilterCase::probes,
                         gen::container<std::vector<ByteVector>>(300, FilterKey()))));
    OracleRequest request(OracleOp::kProbeV10);
    std::vector<ByteVector> files;
    for (const auto& c : cases) {
      ByteVector file;
      ByteWriter w(file);
      w.PutBigI32(c.hash_count);
      w.PutBigI32(static_cast<std::int32_t>(c.words.size()));
      for (auto word : c.words) w.PutBigU64(word);
      w.PutBytes(c.trailing);
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
      auto parsed = cs::V10Filter::Parse(files[i], "generated Filter.db");
      if (!parsed.ok()) RC_FAIL(parsed.status().ToString());
      if (parsed->trailing_bytes() != cases[i].trailing.size()) {
        RC_FAIL("trailing bytes: " + std::to_string(parsed->trailing_bytes()) + ", appended " +
                std::to_string(cases[i].trailing.size()));
      }
      for (const auto& p : cases[i].probes) {
        std::uint8_t java = a.U8();
        if (a.ok() && java != (parsed->MayContain(p) ? 1 : 0)) {
          RC_FAIL("K " + std::to_string(cases[i].hash_count) + ", W " +
                  std::to_string(cases[i].words.size()) + ": isPresent(" + Hex(p) + ") JVM " +
                  std::to_string(java));
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
      if (!spec.ok())
        RC_FAIL(Describe(c) + ": C++ legacy sizing refuses: " + spec.status().ToString());
      auto ours = cs::BuildLegacyFilter(ToKeyList(c.keys), *spec);
      if (!ours.ok())
        RC_FAIL(Describe(c) + ": BuildLegacyFilter fails: " + ours.status().ToString());
      if (*ours != java)
        RC_FAIL(Describe(c) + ": legacy bytes differ: " + FirstDifference(*ours, java));
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
  ByteVector trailing;  // appended after the JDK's stream: both readers stop before it
  std::vector<ByteVector> probes;
};
void showValue(const BitSetCase& c, std::ostream& os) {
  os << (c.fixed_size ? "new BitSet(" + std::to_string(c.nbits) + ")" : std::string("new BitSet()"))
     << " bits {";
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
            gen::set(&BitSetCase::hash_count, gen::just(k)),
            gen::set(&BitSetCase::fixed_size, gen::just(fixed)),
            gen::set(&BitSetCase::nbits, gen::just(nbits)),
            gen::set(&BitSetCase::set_bits,
                     gen::mapcat(gen::inRange(count_min, count_max + 1),
                                 [=](int count) {
                                   return gen::container<std::vector<std::int32_t>>(
                                       static_cast<std::size_t>(count), gen::inRange(0, limit));
                                 })),
            gen::set(&BitSetCase::trailing,
                     gen::weightedOneOf<ByteVector>(
                         {{3, gen::just(ByteVector{})}, {1, RandomBytes(1, 20)}})),
            gen::set(&BitSetCase::probes,
                     gen::container<std::vector<ByteVector>>(100, FilterKey())));
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
      ByteVector file = streams[i];
      file.insert(file.end(), cases[i].trailing.begin(), cases[i].trailing.end());
      probe.Bytes(file);
      probe.Keys(ToKeyList(cases[i].probes));
      probe.EndCase();
    }
    OracleAnswers p = Ask(probe);
    std::int64_t batch_trailing = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& c = cases[i];
      std::string what = std::string(c.fixed_size ? "new BitSet(" + std::to_string(c.nbits) + ")"
                                                  : "new BitSet()") +
                         " with " + std::to_string(c.set_bits.size()) + " bits set, K " +
                         std::to_string(c.hash_count);
      std::string outcome = p.Utf();
      if (outcome != "OK") RC_FAIL(what + ": the JDK cannot read its own stream: " + outcome);
      std::int32_t k = p.I32(), w = p.I32();
      ByteVector file = streams[i];
      file.insert(file.end(), c.trailing.begin(), c.trailing.end());
      auto ours = cs::LegacyFilter::Parse(file, "JDK stream");
      if (!ours.ok())
        RC_FAIL(what + ": our reader refuses the JDK's stream: " + ours.status().ToString());
      if (ours->signed_hash_count() != k || ours->word_count() != w) {
        RC_FAIL(what + ": K/W JDK " + std::to_string(k) + "/" + std::to_string(w) + ", ours " +
                std::to_string(ours->signed_hash_count()) + "/" +
                std::to_string(ours->word_count()));
      }
      if (ours->Serialize() != streams[i])
        RC_FAIL(what + ": re-serialized bytes differ from the JDK's");
      if (ours->trailing_bytes() != c.trailing.size()) {
        RC_FAIL(what + ": trailing bytes " + std::to_string(ours->trailing_bytes()) +
                ", appended " + std::to_string(c.trailing.size()));
      }
      ByteSpan words = ours->words_bytes();
      if (words.size() >= 8 &&
          std::all_of(words.end() - 8, words.end(), [](std::uint8_t b) { return b == 0; })) {
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
  std::cout << "JDK-written legacy streams: " << trailing_zero_words
            << " of them end in a zero word\n";
}

// Filters we create with any word count and fill with any keys: the JDK's ObjectInputStream
// must read our stream, and its BitSet must answer as ours does.
TEST(JavaOracle, TheJdkReadsEveryLegacyStreamWeWrite) {
  std::int64_t agreed = 0;
  CheckAndCount("legacy streams we write", agreed, [&] {
    auto cases = *Batch(
        20,
        gen::build<BuildCase>(
            gen::set(&BuildCase::n_sized,
                     gen::inRange<std::int64_t>(1, 3000)),      // the word count here
            gen::set(&BuildCase::target, gen::inRange(0, 21)),  // the hash count here
            gen::set(&BuildCase::keys, gen::mapcat(gen::inRange<std::size_t>(0, 200),
                                                   [](std::size_t n) {
                                                     return gen::container<std::vector<ByteVector>>(
                                                         n, FilterKey());
                                                   })),
            gen::set(&BuildCase::probes,
                     gen::container<std::vector<ByteVector>>(100, FilterKey()))));
    std::vector<ByteVector> files;
    std::vector<const BuildCase*> built;
    for (auto& c : cases) {
      c.kind = BuildKind::kBuckets;
      auto filter = cs::LegacyFilter::Create(c.target, static_cast<std::int32_t>(c.n_sized));
      if (!filter.ok())
        RC_FAIL("LegacyFilter::Create(" + std::to_string(c.target) + ", " +
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
      if (!ours.ok())
        RC_FAIL("BuildRowFilter(" + std::to_string(c.n_sized) + "): " + ours.status().ToString());
      if (*ours != java) {
        RC_FAIL("row filter, estimated " + std::to_string(c.n_sized) + ", " +
                std::to_string(c.keys.size()) + " names: " + FirstDifference(*ours, java));
      }
      rows.push_back(std::move(java));
    }
    ExpectConsumed(a);
    // Read back the way IndexHelper.defreezeBloomFilter does, 1.0 and legacy payloads.
    OracleRequest probe(OracleOp::kProbeRow);
    std::vector<ByteVector> payloads;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      bool legacy = i % 2 == 1;
      ByteVector row = rows[i];
      if (legacy) {
        auto spec =
            cs::LegacySizeForBucketsPerElement(cases[i].n_sized, cs::kRowFilterBucketsPerElement);
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
        RC_FAIL("row filter K/W differ from the JVM's " + std::to_string(k) + "/" +
                std::to_string(w));
      }
      KeyList keys = ToKeyList(cases[i].probes);
      for (const auto& key : cases[i].keys) keys.Add(ByteSpan(key));
      for (std::size_t j = 0; j < keys.size(); ++j) {
        std::uint8_t java = p.U8();
        if (p.ok() && java != (ours->filter().MayContain(keys[j]) ? 1 : 0)) {
          RC_FAIL(std::string(legacy ? "legacy " : "") + "row filter: isPresent(" + Hex(keys[j]) +
                  "): JVM " + std::to_string(java));
        }
      }
    }
    ExpectConsumed(p);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

}  // namespace
}  // namespace bloomcodec::testing
