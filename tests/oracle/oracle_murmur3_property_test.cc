// C++ against a real JVM, part 3: the Murmur3 filters of Cassandra 1.2 - 5.0 (formats
// cassandra-1.2, cassandra-3.0, cassandra-4.0). The JVM computes hash3_x64_128 with Java's own
// byte widening, the sizing with real asserts, and whole Filter.db files through
// DataOutputStream; our side is reached only through the FormatCodec interface the command line
// uses, so these properties judge exactly what `bloomcodec` answers.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "codec/byte_writer.h"
#include "oracle/oracle_property_support.h"

namespace bloomcodec::testing {
namespace {

struct Murmur3Format {
  Murmur3Variant variant;
  const char* name;
};
constexpr Murmur3Format kMurmur3Formats[] = {
    {Murmur3Variant::k1_2, "cassandra-1.2"},
    {Murmur3Variant::k3_0, "cassandra-3.0"},
    {Murmur3Variant::k4_0, "cassandra-4.0"},
};

const FormatCodec& Codec(const char* name) {
  const FormatCodec* f = FindFormat(name);
  if (f == nullptr) RC_FAIL(std::string("no format ") + name);
  return *f;
}

rc::Gen<Murmur3Format> AnyMurmur3Format() {
  return gen::elementOf(
      std::vector<Murmur3Format>(std::begin(kMurmur3Formats), std::end(kMurmur3Formats)));
}
void showValue(const Murmur3Format& f, std::ostream& os) { os << f.name; }

// ---------------------------------------------------------------------------------- hash

TEST(JavaOracle, Murmur3HalvesAgreeForArbitraryBytes) {
  std::int64_t agreed = 0;
  CheckAndCount("murmur3", agreed, [&] {
    auto keys = *Batch(kHashBatch, HashKey());
    OracleRequest request(OracleOp::kMurmur3);
    for (const auto& k : keys) {
      request.Bytes(k);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    for (const auto& k : keys) {
      const std::int64_t h0 = a.I64();
      const std::int64_t h1 = a.I64();
      const std::string java = std::to_string(h0) + "\t" + std::to_string(h1);
      // Every Murmur3 format prints the same two halves.
      for (const Murmur3Format& f : kMurmur3Formats) {
        std::string ours;
        const Status s = Codec(f.name).Hash(k, ours);
        if (!s.ok()) RC_FAIL(std::string(f.name) + " hash: " + s.ToString());
        if (a.ok() && ours != java) {
          RC_FAIL(std::string(f.name) + " hash of " + Hex(k) + ": C++ " + ours + ", JVM " + java);
        }
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(keys.size());
  });
}

// ---------------------------------------------------------------------------------- sizing

struct Murmur3SizeCase {
  std::int64_t n;
  double fp;
};
void showValue(const Murmur3SizeCase& c, std::ostream& os) {
  os << "n " << c.n << " fp " << ToHex(ByteSpan(reinterpret_cast<const std::uint8_t*>(&c.fp), 8));
}

// What `size` must answer for one JVM outcome; empty when it does.
std::string CompareSize(const FormatCodec& codec, const Murmur3SizeCase& c, OracleAnswers& a) {
  FilterParams params;
  params.fp_chance = c.fp;
  params.expected_keys = c.n;
  const Result<SizeInfo> ours = codec.Size(params);
  const std::string outcome = a.Utf();
  const std::string where = std::string(codec.name()) + " size(n " + std::to_string(c.n) + ", fp " +
                            std::to_string(c.fp) + "): ";
  if (outcome != "OK") {
    if (ours.ok()) return where + "the JVM refuses (" + outcome + "), C++ sizes it";
    if (ours.status().code() != StatusCode::kRefused ||
        ours.status().message().find(outcome) == std::string::npos) {
      return where + "the JVM refuses with \"" + outcome + "\", C++ says " +
             ours.status().ToString();
    }
    return {};
  }
  const bool always_present = a.U8() != 0;
  const std::int32_t k = a.I32();
  const std::int32_t bpe = a.I32();
  a.I64();  // the requested bits: what the words are computed from
  const std::int32_t words = a.I32();
  if (!ours.ok()) return where + "the JVM sizes it, C++ says " + ours.status().ToString();
  if (always_present) {
    // The always-present filter has no bit set: no hash functions, no words.
    if (ours->hash_count != 0 || ours->bits != 0) {
      return where + "the JVM gives the always-present filter, C++ " +
             std::to_string(ours->hash_count) + " hashes over " + std::to_string(ours->bits) +
             " bits";
    }
    return {};
  }
  if (ours->hash_count != k || ours->buckets_per_element != bpe || ours->words != words ||
      ours->bits != std::int64_t{words} * 64 || ours->file_bytes != 8 + std::int64_t{words} * 8) {
    return where + "JVM K " + std::to_string(k) + " bpe " + std::to_string(bpe) + " words " +
           std::to_string(words) + "; C++ K " + std::to_string(ours->hash_count) + " bpe " +
           std::to_string(ours->buckets_per_element.value_or(-1)) + " words " +
           std::to_string(ours->words.value_or(-1)) + " bits " + std::to_string(ours->bits) +
           " file " + std::to_string(ours->file_bytes);
  }
  return {};
}

TEST(JavaOracle, Murmur3SizingAgreesForArbitraryCountsAndProbabilitiesIncludingRefusals) {
  std::int64_t agreed = 0;
  CheckAndCount("murmur3 sizing", agreed, [&] {
    const Murmur3Format format = *AnyMurmur3Format();
    auto cases = *Batch(kSizingBatch,
                        gen::build<Murmur3SizeCase>(gen::set(&Murmur3SizeCase::n, ElementCount()),
                                                    gen::set(&Murmur3SizeCase::fp, FpChance())));
    OracleRequest request(OracleOp::kSizeMurmur3);
    for (const auto& c : cases) {
      request.U8(1);  // Cassandra runs with assertions enabled
      request.I64(c.n);
      request.F64(c.fp);
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    for (const auto& c : cases) {
      const std::string difference = CompareSize(Codec(format.name), c, a);
      if (a.ok() && !difference.empty()) RC_FAIL(difference);
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// ---------------------------------------------------------------------------------- filters

struct Murmur3BuildCase {
  std::int64_t n_sized;
  double fp;
  std::vector<ByteVector> keys;
  std::vector<ByteVector> probes;
};
void showValue(const Murmur3BuildCase& c, std::ostream& os) {
  os << "sized for " << c.n_sized << ", fp " << c.fp << ", keys [";
  for (std::size_t i = 0; i < c.keys.size(); ++i) os << (i ? "," : "") << Hex(c.keys[i]);
  os << "]";
}

rc::Gen<Murmur3BuildCase> Murmur3BuildCaseGen() {
  return gen::mapcat(
      gen::tuple(gen::inRange<std::int64_t>(0, 400), gen::inRange(0, 100), gen::inRange(0, 1001)),
      [](const std::tuple<std::int64_t, int, int>& t) {
        const std::int64_t n = std::get<0>(t);
        // Mostly up to the sized count, sometimes an over-full filter.
        const std::int64_t max_keys = std::get<1>(t) < 70 ? n : 2 * n + 10;
        const auto count = static_cast<std::size_t>(max_keys * std::get<2>(t) / 1000);
        return gen::build<Murmur3BuildCase>(
            gen::set(&Murmur3BuildCase::n_sized, gen::just(n)),
            gen::set(&Murmur3BuildCase::fp, FilterFpChance()),
            gen::set(&Murmur3BuildCase::keys,
                     gen::container<std::vector<ByteVector>>(count, FilterKey())),
            gen::set(&Murmur3BuildCase::probes,
                     gen::container<std::vector<ByteVector>>(60, FilterKey())));
      });
}

TEST(JavaOracle, Murmur3FilterBytesAndAnswersAgreeForRandomKeySets) {
  std::int64_t agreed = 0;
  CheckAndCount("murmur3 filters", agreed, [&] {
    const Murmur3Format format = *AnyMurmur3Format();
    const FormatCodec& codec = Codec(format.name);
    auto cases = *Batch(kFilterBatch, Murmur3BuildCaseGen());
    OracleRequest build(OracleOp::kBuildMurmur3);
    for (const auto& c : cases) {
      build.U8(static_cast<std::uint8_t>(format.variant));
      build.I64(c.n_sized);
      build.F64(c.fp);
      build.Keys(ToKeyList(c.keys));
      build.EndCase();
    }
    OracleAnswers built = Ask(build);
    std::vector<ByteVector> files;
    std::vector<const Murmur3BuildCase*> probed;
    for (const auto& c : cases) {
      const std::string outcome = built.Utf();
      FilterParams params;
      params.fp_chance = c.fp;
      params.expected_keys = c.n_sized;
      const KeyList keys = ToKeyList(c.keys);
      const Result<ByteVector> ours = codec.Build(keys, params);
      if (!built.ok()) break;
      if (outcome != "OK") {
        // Refused sizing, or fp 1.0 where no Filter.db is written: C++ must not invent a file.
        if (ours.ok())
          RC_FAIL(std::string(format.name) + ": the JVM writes no file (" + outcome +
                  "), C++ does");
        continue;
      }
      ByteVector java = built.Bytes();
      if (!ours.ok())
        RC_FAIL(std::string(format.name) + ": the JVM builds, C++ says " +
                ours.status().ToString());
      if (*ours != java)
        RC_FAIL(std::string(format.name) + " bytes differ: " + FirstDifference(*ours, java));
      files.push_back(std::move(java));
      probed.push_back(&c);
    }
    ExpectConsumed(built);

    // The JVM's reader and ours must give the same answers for the keys and unrelated probes.
    OracleRequest probe(OracleOp::kProbeMurmur3);
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::vector<ByteVector> all = probed[i]->keys;
      all.insert(all.end(), probed[i]->probes.begin(), probed[i]->probes.end());
      probe.U8(static_cast<std::uint8_t>(format.variant));
      probe.Bytes(files[i]);
      probe.Keys(ToKeyList(all));
      probe.EndCase();
    }
    OracleAnswers answered = Ask(probe);
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::vector<ByteVector> all = probed[i]->keys;
      all.insert(all.end(), probed[i]->probes.begin(), probed[i]->probes.end());
      const KeyList keys = ToKeyList(all);
      const std::string outcome = answered.Utf();
      if (outcome != "OK") RC_FAIL("the JVM cannot read its own filter: " + outcome);
      answered.I32();
      answered.I32();
      std::vector<std::uint8_t> java(keys.size()), ours(keys.size());
      for (auto& v : java) v = answered.U8();
      const Status s = codec.Probe(files[i], "oracle", keys, ProbeOptions{}, ours);
      if (!s.ok()) RC_FAIL(std::string(format.name) + " probe: " + s.ToString());
      for (std::size_t j = 0; j < keys.size(); ++j) {
        if (j < probed[i]->keys.size() && ours[j] != 1) RC_FAIL("false negative for an added key");
        if (answered.ok() && ours[j] != java[j]) {
          RC_FAIL(std::string(format.name) + " answer for " + Hex(keys[j]) + ": C++ " +
                  std::to_string(ours[j]) + ", JVM " + std::to_string(java[j]));
        }
      }
    }
    ExpectConsumed(answered);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

// Arbitrary headers and bits: any K (including the K > 21 that overruns Cassandra's reusable
// index array, and K <= 0), any small word count, any bit pattern, and files cut short or with
// extra bytes. Where the JVM throws, we must refuse; where it answers, so must we, the same
// (except two headers Cassandra never writes, which we refuse as corrupt: see below).
struct Murmur3FileCase {
  std::int32_t hash_count;
  std::int32_t words;
  std::vector<std::uint8_t> bits;
  int cut;  // < 0: drop that many bytes from the end; > 0: append that many
  std::vector<ByteVector> probes;
};
void showValue(const Murmur3FileCase& c, std::ostream& os) {
  os << "K " << c.hash_count << " words " << c.words << " cut " << c.cut << " bits " << Hex(c.bits);
}

rc::Gen<Murmur3FileCase> Murmur3FileCaseGen() {
  return gen::mapcat(gen::inRange<std::int32_t>(0, 9), [](std::int32_t words) {
    return gen::build<Murmur3FileCase>(
        gen::set(&Murmur3FileCase::hash_count,
                 gen::weightedOneOf<std::int32_t>({{6, gen::inRange<std::int32_t>(0, 16)},
                                                   {2, gen::inRange<std::int32_t>(16, 30)},
                                                   {1, gen::inRange<std::int32_t>(-3, 0)}})),
        gen::set(&Murmur3FileCase::words, gen::just(words)),
        gen::set(&Murmur3FileCase::bits,
                 gen::container<std::vector<std::uint8_t>>(
                     static_cast<std::size_t>(words) * 8,
                     gen::weightedOneOf<std::uint8_t>({{3, gen::arbitrary<std::uint8_t>()},
                                                       {2, gen::just<std::uint8_t>(0xff)},
                                                       {1, gen::just<std::uint8_t>(0)}}))),
        gen::set(&Murmur3FileCase::cut,
                 gen::weightedOneOf<int>(
                     {{8, gen::just(0)}, {1, gen::inRange(-9, 0)}, {1, gen::inRange(1, 9)}})),
        gen::set(&Murmur3FileCase::probes,
                 gen::container<std::vector<ByteVector>>(40, FilterKey())));
  });
}

ByteVector Murmur3File(const Murmur3FileCase& c) {
  ByteVector file;
  ByteWriter w(file);
  w.PutBigI32(c.hash_count);
  w.PutBigI32(c.words);
  w.PutBytes(c.bits);
  if (c.cut < 0)
    file.resize(file.size() - std::min<std::size_t>(file.size(), static_cast<std::size_t>(-c.cut)));
  for (int i = 0; i < c.cut; ++i) file.push_back(static_cast<std::uint8_t>(0xa5 ^ i));
  return file;
}

TEST(JavaOracle, Murmur3FilterAnswersAgreeForArbitraryHeadersAndBitPatterns) {
  std::int64_t agreed = 0;
  CheckAndCount("murmur3 files", agreed, [&] {
    const Murmur3Format format = *AnyMurmur3Format();
    const FormatCodec& codec = Codec(format.name);
    auto cases = *Batch(kFilterBatch * 5, Murmur3FileCaseGen());
    OracleRequest request(OracleOp::kProbeMurmur3);
    std::vector<ByteVector> files;
    for (const auto& c : cases) {
      files.push_back(Murmur3File(c));
      request.U8(static_cast<std::uint8_t>(format.variant));
      request.Bytes(files.back());
      request.Keys(ToKeyList(c.probes));
      request.EndCase();
    }
    OracleAnswers a = Ask(request);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const KeyList keys = ToKeyList(cases[i].probes);
      std::vector<std::uint8_t> ours(keys.size());
      const Status s = codec.Probe(files[i], "oracle", keys, ProbeOptions{}, ours);
      const std::string outcome = a.Utf();
      if (!a.ok()) break;
      if (outcome != "OK") {
        if (s.ok()) {
          RC_FAIL(std::string(format.name) + ": the JVM throws (" + outcome + ") on " +
                  Hex(files[i]) + ", C++ answers");
        }
        continue;
      }
      a.I32();
      a.I32();
      std::vector<std::uint8_t> java(keys.size());
      for (auto& v : java) v = a.U8();
      // Deliberately stricter than the original where Cassandra never writes such a header and
      // answers only because its loop runs zero times ("present" for every key): K < 0, and
      // K = 0 over zero words (with K > 0 the JVM divides by zero, and we refuse too).
      // (A 4.0 file cut to 0 bytes is 5.0's always-present filter, answered by both.)
      const char* stricter = files[i].empty()          ? nullptr
                             : cases[i].hash_count < 0 ? "hash count"
                             : cases[i].words == 0     ? "word count"
                                                       : nullptr;
      if (stricter != nullptr) {
        if (s.ok() || s.message().find(stricter) == std::string::npos) {
          RC_FAIL(std::string(format.name) + ": a header with a bad " + stricter +
                  " must be refused, got " + (s.ok() ? std::string("answers") : s.ToString()));
        }
        continue;
      }
      if (!s.ok()) {
        RC_FAIL(std::string(format.name) + ": the JVM answers for " + Hex(files[i]) +
                ", C++ says " + s.ToString());
      }
      if (a.ok() && ours != java) {
        RC_FAIL(std::string(format.name) + ": answers differ for " + Hex(files[i]));
      }
    }
    ExpectConsumed(a);
    agreed += static_cast<std::int64_t>(cases.size());
  });
}

}  // namespace
}  // namespace bloomcodec::testing
