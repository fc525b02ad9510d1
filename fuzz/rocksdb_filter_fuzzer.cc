// RocksDB full filters: every byte string is a filter to RocksDB's reader (the trailer decides
// the kind), so Parse must accept it and the query paths must answer without reading outside it
// (also for the crafted geometries where RocksDB itself would), the same single, batched and from
// a precomputed hash, with the reader's edge cases (5 bytes or fewer: absent; reserved or unusable
// trailers: may match). Inspect and dump work on it, and undump gives the bytes back.
#include <algorithm>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::rocksdb;

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
