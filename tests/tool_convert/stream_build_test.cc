// FormatCodec::StartBuild / OpenProbe, the streamed paths of convert, against Build / Probe of the
// whole key list, for every format of the registry (overrides added later are covered too):
// byte-identical files for any chunking, CountMismatch when the keys added are not the count
// promised, the same refusals, and the same answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"

namespace bloomcodec::testing {
namespace {

// Distinct keys of random lengths 0..40 (fixed seed): binary bytes, or printable ASCII for the
// formats whose keys are text.
KeyList MakeKeys(std::size_t n, bool text, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> seen;
  KeyList keys;
  while (keys.size() < n) {
    std::string k(static_cast<std::size_t>(rng() % 41), '\0');
    for (char& c : k) {
      c = text ? static_cast<char>(0x20 + rng() % 95) : static_cast<char>(rng() & 0xff);
    }
    if (seen.insert(k).second) keys.Add(k);
  }
  return keys;
}

// Keys that are none of `keys` (a different length range keeps them apart).
KeyList AbsentKeys(std::size_t n, bool text, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) {
    std::string k(41 + static_cast<std::size_t>(rng() % 20), '\0');
    for (char& c : k) {
      c = text ? static_cast<char>(0x20 + rng() % 95) : static_cast<char>(rng() & 0xff);
    }
    keys.Add(k);
  }
  return keys;
}

std::vector<ByteSpan> Spans(const KeyList& keys) {
  std::vector<ByteSpan> out;
  for (std::size_t i = 0; i < keys.size(); ++i) out.push_back(keys[i]);
  return out;
}

// The parameter sets tried on every format: each format takes some and refuses the others.
struct NamedParams {
  std::string name;
  FilterParams params;
};
std::vector<NamedParams> CandidateParams() {
  std::vector<NamedParams> out;
  out.push_back({"none", {}});
  FilterParams p;
  p.fp_chance = 0.01;
  out.push_back({"fp 0.01", p});
  p = {};
  p.bits_per_key = 10;
  out.push_back({"bits 10", p});
  p = {};
  p.buckets_per_element = 15;
  out.push_back({"buckets 15", p});
  p = {};
  p.fp_chance = 1.0;
  out.push_back({"fp 1.0", p});
  p = {};
  p.bits_per_key = 0.4;
  out.push_back({"bits 0.4", p});
  p = {};
  p.bits_per_key = 7.5;  // RocksDB's decimal bits per key; not LevelDB's int
  out.push_back({"bits 7.5", p});
  p = {};
  p.fp_chance = 0.01;
  p.expected_keys = 5000;  // Cassandra sized from an estimate, not the keys given
  out.push_back({"fp 0.01, expected 5000", p});
  return out;
}

// StartBuild + Add in chunks of `chunk` keys + Finish.
Result<ByteVector> StreamedBuild(const FormatCodec& f, const KeyList& keys, std::uint64_t promised,
                                 std::size_t chunk, const FilterParams& params) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<FilterBuilder> b, f.StartBuild(promised, params));
  const std::vector<ByteSpan> all = Spans(keys);
  for (std::size_t i = 0; i < all.size(); i += chunk) {
    const std::size_t n = std::min(chunk, all.size() - i);
    BLOOMCODEC_RETURN_IF_ERROR(b->Add(std::span<const ByteSpan>(all).subspan(i, n)));
  }
  return b->Finish();
}

std::vector<std::size_t> ChunkSizes(std::size_t n) {
  std::vector<std::size_t> out;
  if (n <= 1000) out = {1, 7};  // a call per key is too slow for tables of 20000 keys
  out.push_back(kStreamChunkKeys);
  out.push_back(std::max<std::size_t>(n, 1));
  return out;
}

class StreamBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamBuild, StreamedBuildAndProbeEqualBuildAndProbeOfTheWholeList) {
  const FormatCodec* f = FindFormat(GetParam());
  ASSERT_NE(f, nullptr);
  int built = 0, unsupported = 0;
  for (bool text : {false, true}) {
    for (std::size_t n : {0, 1, 1000, 20000}) {
      const KeyList keys = MakeKeys(n, text, 17 + n);
      for (const NamedParams& np : CandidateParams()) {
        SCOPED_TRACE(std::string(text ? "text" : "binary") + " keys, n=" + std::to_string(n) +
                     ", params " + np.name);
        Result<ByteVector> whole = f->Build(keys, np.params);
        if (!whole.ok()) {
          if (whole.status().code() == StatusCode::kUnsupported) ++unsupported;
          // The streamed build refuses too, with the same code, at StartBuild or at Finish.
          for (std::size_t chunk : {std::size_t{4096}, std::max<std::size_t>(n, 1)}) {
            Result<ByteVector> streamed = StreamedBuild(*f, keys, n, chunk, np.params);
            ASSERT_FALSE(streamed.ok()) << "Build refused: " << whole.status().ToString();
            EXPECT_EQ(streamed.status().code(), whole.status().code())
                << streamed.status().ToString() << " vs " << whole.status().ToString();
          }
          continue;
        }
        ++built;
        for (std::size_t chunk : ChunkSizes(n)) {
          SCOPED_TRACE("chunks of " + std::to_string(chunk));
          Result<ByteVector> streamed = StreamedBuild(*f, keys, n, chunk, np.params);
          ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
          EXPECT_TRUE(*streamed == *whole)
              << "streamed " << streamed->size() << " bytes, Build " << whole->size();
        }
        // One key fewer, one key more than promised.
        if (n > 0) {
          KeyList fewer_keys;
          for (std::size_t i = 0; i + 1 < n; ++i) fewer_keys.Add(keys[i]);
          Result<ByteVector> fewer = StreamedBuild(*f, fewer_keys, n, 4096, np.params);
          ASSERT_FALSE(fewer.ok());
          EXPECT_EQ(fewer.status().code(), StatusCode::kInvalidArgument);
          EXPECT_EQ(fewer.status().ToString(), CountMismatch(n, n - 1).ToString());
        }
        {
          KeyList plus_one = keys;
          plus_one.Add(std::string("one key more than promised"));
          Result<ByteVector> more = StreamedBuild(*f, plus_one, n, 4096, np.params);
          ASSERT_FALSE(more.ok());
          EXPECT_EQ(more.status().code(), StatusCode::kInvalidArgument);
          EXPECT_EQ(more.status().ToString(), CountMismatch(n, n + 1).ToString());
        }

        // Probe: the built keys and as many absent ones, whole and through OpenProbe in chunks.
        const ProbeOptions options = f->BuiltProbeOptions();
        KeyList probes = keys;
        const KeyList absent = AbsentKeys(std::max<std::size_t>(n, 1), text, 99 + n);
        for (std::size_t i = 0; i < absent.size(); ++i) probes.Add(absent[i]);
        std::vector<std::uint8_t> expected(probes.size(), 7);
        const Status probed = f->Probe(*whole, "built.bin", probes, options, expected);
        Result<std::unique_ptr<FileProbe>> opened = f->OpenProbe(*whole, "built.bin", options);
        if (!probed.ok()) {
          // A file Build wrote is probed, unless the format has no probe at all or refuses the
          // probe keys (binary absent keys for a text format, after a build of no keys); then
          // OpenProbe or its Probe says the same.
          EXPECT_TRUE(probed.code() == StatusCode::kUnsupported ||
                      (probed.code() == StatusCode::kInvalidArgument && !text && n == 0))
              << probed.ToString();
          const Status s =
              opened.ok() ? (*opened)->Probe(Spans(probes), expected) : opened.status();
          EXPECT_EQ(s.code(), probed.code()) << s.ToString() << " vs " << probed.ToString();
          continue;
        }
        for (std::size_t i = 0; i < keys.size(); ++i) {
          ASSERT_EQ(expected[i], 1) << "built key " << i << " is absent from the built file";
        }
        ASSERT_TRUE(opened.ok()) << opened.status().ToString();
        const std::vector<ByteSpan> all = Spans(probes);
        for (std::size_t chunk : ChunkSizes(probes.size())) {
          SCOPED_TRACE("probe chunks of " + std::to_string(chunk));
          std::vector<std::uint8_t> answers(all.size(), 7);
          for (std::size_t i = 0; i < all.size(); i += chunk) {
            const std::size_t m = std::min(chunk, all.size() - i);
            const Status s = (*opened)->Probe(std::span<const ByteSpan>(all).subspan(i, m),
                                              std::span<std::uint8_t>(answers).subspan(i, m));
            ASSERT_TRUE(s.ok()) << s.ToString();
          }
          EXPECT_TRUE(answers == expected);
        }
      }
    }
  }
  // Every format either builds with one of the candidate parameters or has no build at all.
  if (built == 0) {
    EXPECT_GT(unsupported, 0) << f->name() << " built nothing";
  }
  RecordProperty("builds", built);
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> names;
  for (const FormatCodec* f : AllFormats()) names.emplace_back(f->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, StreamBuild, ::testing::ValuesIn(FormatNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace bloomcodec::testing
