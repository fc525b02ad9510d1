// C++ against a real JVM, part 4: Cassandra 0.4 - 0.7 beta (cassandra-0.6), whose filter hashes
// Java Strings. On random Strings (NUL, every UTF-8 length class, surrogate pairs, unpaired
// surrogates of both kinds) the JDK's getBytes("UTF-16") and writeUTF must match what we compute
// and decode; whole filters built by the JVM from Strings must be byte-identical to ours and
// answer every probe alike.
#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/format.h"
#include "oracle/oracle_property_support.h"

namespace bloomcodec::testing {
namespace {

namespace cs = bloomcodec::cassandra;

// One "character" of a generated String: 1 or 2 code units, each kind at a fixed rate, and the
// code point uniform in its range whatever the case size (JavaStringGen sizes the Strings at 24,
// where a scaled range would reach only its first quarter: no unpaired low surrogate).
rc::Gen<std::u16string> UnitsGen() {
  auto one = [](int lo, int hi) {
    return gen::map(gen::resize(100, gen::inRange(lo, hi)),
                    [](int u) { return std::u16string(1, char16_t(u)); });
  };
  return gen::weightedOneOf<std::u16string>({
      {4, one(0, 0x80)},  // ASCII, NUL included
      {2, one(0x80, 0x800)},
      {2, one(0x800, 0xd800)},
      {1, one(0xe000, 0x10000)},
      {2, gen::map(
              gen::resize(100, gen::inRange(0x10000, 0x110000)),
              [](int cp) {
                const int v = cp - 0x10000;
                return std::u16string{char16_t(0xd800 + (v >> 10)), char16_t(0xdc00 + (v & 0x3ff))};
              })},
      {1, one(0xd800, 0xe000)},  // an unpaired surrogate (unless a neighbour pairs it)
  });
}

rc::Gen<std::u16string> JavaStringGen() {
  return gen::map(gen::resize(24, gen::container<std::vector<std::u16string>>(UnitsGen())),
                  [](const std::vector<std::u16string>& parts) {
                    std::u16string s;
                    for (const auto& p : parts) s += p;
                    return s;
                  });
}

ByteVector CodeUnits(std::u16string_view s) {
  ByteVector out;
  for (char16_t u : s) {
    out.push_back(static_cast<std::uint8_t>(u >> 8));
    out.push_back(static_cast<std::uint8_t>(u & 0xff));
  }
  return out;
}

// Standard UTF-8 of a String without unpaired surrogates; nullopt when it has one.
// A String's UTF-8 form; none when it holds an unpaired surrogate.
std::optional<ByteVector> Utf8Of(std::u16string_view s) {
  const std::optional<std::string> text = cs::Utf8FromUtf16(s, /*replace_unpaired=*/false);
  if (!text) return std::nullopt;
  return ByteVector(text->begin(), text->end());
}

RC_GTEST_PROP(JavaOracleStrings, GetBytesUtf16AndReadUtfAgreeWithTheJdk, ()) {
  const auto strings = *Batch(200, JavaStringGen());
  OracleRequest request(OracleOp::kStringBytes);
  for (const auto& s : strings) {
    request.Bytes(CodeUnits(s));
    request.EndCase();
  }
  OracleAnswers a = Ask(request);
  for (const auto& s : strings) {
    const ByteVector java_utf16 = a.Bytes();
    const ByteVector java_utf = a.Bytes();
    RC_ASSERT(a.ok());
    RC_ASSERT(Hex(cs::JavaUtf16Bytes(s)) == Hex(java_utf16));
    // What writeUTF wrote, readUTF's way, is the String again.
    auto decoded = cs::DecodeModifiedUtf8(java_utf, "writeUTF");
    RC_ASSERT(decoded.ok());
    RC_ASSERT(*decoded == s);
    // A String that UTF-8 can carry comes back from its UTF-8 the same.
    if (auto utf8 = Utf8Of(s)) {
      auto from_utf8 = cs::DecodeUtf8Text(*utf8, "utf8");
      RC_ASSERT(from_utf8.ok());
      RC_ASSERT(*from_utf8 == s);
    }
  }
  ExpectConsumed(a);
}

struct StringFilterCase {
  bool by_fp;
  double fp;
  std::int32_t target;
  std::vector<std::u16string> keys;
  std::vector<std::u16string> probes;
};

rc::Gen<StringFilterCase> StringFilterCaseGen() {
  return gen::build<StringFilterCase>(
      gen::set(&StringFilterCase::by_fp, gen::arbitrary<bool>()),
      gen::set(&StringFilterCase::fp, gen::element(0.1, 0.01, 0.05, 0.001, 0.3)),
      gen::set(&StringFilterCase::target, gen::inRange(1, 21)),
      gen::set(&StringFilterCase::keys,
               gen::resize(60, gen::container<std::vector<std::u16string>>(JavaStringGen()))),
      gen::set(&StringFilterCase::probes,
               gen::resize(40, gen::container<std::vector<std::u16string>>(JavaStringGen()))));
}

RC_GTEST_PROP(JavaOracleStrings, WholeFiltersAreByteIdenticalAndAnswerAlike, ()) {
  const auto cases = *Batch(kFilterBatch, StringFilterCaseGen());
  OracleRequest request(OracleOp::kBuildString);
  std::vector<cs::LegacyFilterSpec> specs;
  for (const auto& c : cases) {
    const auto n = static_cast<std::int64_t>(c.keys.size());
    auto spec = c.by_fp ? cs::StringFilterSizeForFpChance(n, c.fp)
                        : cs::StringFilterSizeForBucketsPerElement(n, c.target);
    RC_ASSERT(spec.ok());
    specs.push_back(*spec);
    request.I32(spec->hash_count);
    request.I32(spec->nbits);
    request.I32(static_cast<std::int32_t>(c.keys.size()));
    for (const auto& k : c.keys) request.Bytes(CodeUnits(k));
    request.I32(static_cast<std::int32_t>(c.probes.size() + c.keys.size()));
    for (const auto& p : c.probes) request.Bytes(CodeUnits(p));
    for (const auto& k : c.keys) request.Bytes(CodeUnits(k));
    request.EndCase();
  }
  OracleAnswers a = Ask(request);
  const FormatCodec* codec = FindFormat("cassandra-0.6");
  RC_ASSERT(codec != nullptr);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const ByteVector java = a.Bytes();
    KeyList hashed;
    for (const auto& k : c.keys) hashed.Add(ByteSpan(cs::JavaUtf16Bytes(k)));
    auto ours = cs::BuildLegacyFilter(hashed, specs[i]);
    RC_ASSERT(ours.ok());
    RC_ASSERT(Hex(*ours) == Hex(java));
    auto parsed = cs::LegacyFilter::Parse(java, "jvm");
    RC_ASSERT(parsed.ok());
    std::vector<std::u16string> all = c.probes;
    all.insert(all.end(), c.keys.begin(), c.keys.end());
    for (const auto& p : all) {
      const bool java_answer = a.U8() != 0;
      RC_ASSERT(parsed->MayContain(cs::JavaUtf16Bytes(p)) == java_answer);
    }
    // Through the command line's codec, when every key is UTF-8 text.
    KeyList utf8;
    bool text = true;
    for (const auto& k : c.keys) {
      auto u = Utf8Of(k);
      if (!u) text = false;
      if (u) utf8.Add(ByteSpan(*u));
    }
    if (text) {
      FilterParams params;
      if (c.by_fp)
        params.fp_chance = c.fp;
      else
        params.buckets_per_element = c.target;
      auto built = codec->Build(utf8, params);
      RC_ASSERT(built.ok());
      RC_ASSERT(Hex(*built) == Hex(java));
    }
  }
  ExpectConsumed(a);
}

}  // namespace
}  // namespace bloomcodec::testing
