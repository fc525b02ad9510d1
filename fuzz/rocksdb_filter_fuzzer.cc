// RocksDB full filters: every byte string is a filter to RocksDB's reader (the trailer decides
// the kind), so Parse must accept it and the query paths must answer without reading outside it
// (also for the crafted geometries where RocksDB itself would), the same single, batched and from
// a precomputed hash, with the reader's edge cases (5 bytes or fewer: absent; reserved or unusable
// trailers: may match). Inspect and dump work on it, and undump gives the bytes back. The same
// bytes as Speedb's paired Bloom filter (its reader, its 4-byte trailer): the same agreements,
// its layout check answers, and a filter built from the probe keys holds all of them.
#include <algorithm>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "fuzz_support.h"
#include "rocksdb/speedb_paired_bloom.h"

using namespace bloomcodec;
using namespace bloomcodec::rocksdb;

namespace {

void CheckSpeedb(ByteSpan filter, const KeyList& keys) {
  Result<FullFilterReader> parsed =
      FullFilterReader::Parse(filter, "fuzz.bin", FilterPolicyFamily::kSpeedbPaired);
  FUZZ_CHECK(parsed.ok());
  const FullFilterReader& f = parsed.value();
  std::vector<std::uint8_t> answers(keys.size());
  f.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool single = f.MayContain(keys[i]);
    FUZZ_CHECK(answers[i] == single);
    FUZZ_CHECK(f.HashMayMatch(Hash64(keys[i])) == single);
    if (filter.size() <= speedb::kTrailerBytes) FUZZ_CHECK(!single);
    if (f.kind() == FullFilterKind::kAlwaysMatch) FUZZ_CHECK(single);
  }
  FUZZ_CHECK(f.bits_set() <= f.bit_count());
  (void)f.Describe();
  (void)speedb::CheckLayout(filter, speedb::ReadTrailer(filter), "fuzz.bin", 0);
  // Built from the facts: every key added is present, and the layout is the writer's.
  const int millibits = 1000 + (filter.empty() ? 0 : filter[0]) * 100;
  const ByteVector built = speedb::Build(CollapsedHashes(FilterEncoding::kFastLocalBloom, keys),
                                         millibits, filter.size() % 2 == 0);
  const speedb::Trailer t = speedb::ReadTrailer(built);
  FUZZ_CHECK(speedb::CheckLayout(built, t, "built", 0).ok());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(t.kind != speedb::Kind::kPaired || speedb::HashMayMatch(built, t, Hash64(keys[i])));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan filter(data, size);
  Result<FullFilterReader> parsed = FullFilterReader::Parse(filter, "fuzz.bin");
  FUZZ_CHECK(parsed.ok());
  const FullFilterReader& f = parsed.value();
  const KeyList keys = fuzz::ProbeKeys(filter);
  std::vector<std::uint8_t> answers(keys.size());
  f.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool single = f.MayContain(keys[i]);
    FUZZ_CHECK(answers[i] == single);
    const std::uint64_t h =
        f.kind() == FullFilterKind::kLegacyBloom ? LegacyBloomHash(keys[i]) : Hash64(keys[i]);
    FUZZ_CHECK(f.HashMayMatch(h) == single);
    if (size <= kMetadataBytes) FUZZ_CHECK(!single);
    if (f.kind() == FullFilterKind::kAlwaysMatch) FUZZ_CHECK(single);
  }
  FUZZ_CHECK(f.bits_set() <= f.bit_count());
  (void)f.Describe();
  CheckSpeedb(filter, keys);
  for (const char* name : {"rocksdb-bloom-legacy", "rocksdb-bloom", "rocksdb-ribbon"}) {
    const FormatCodec* codec = FindFormat(name);
    FUZZ_CHECK(codec != nullptr);
    FUZZ_CHECK(codec->Inspect(filter, "fuzz.bin").ok());
    Result<Document> dump = codec->Dump(filter, "fuzz.bin");
    FUZZ_CHECK(dump.ok());
    Result<ByteVector> back = codec->Undump(dump.value(), "fuzz.bin");
    FUZZ_CHECK(back.ok() && ByteSpan(back.value()).size() == size &&
               std::equal(back.value().begin(), back.value().end(), data));
  }
  return 0;
}
