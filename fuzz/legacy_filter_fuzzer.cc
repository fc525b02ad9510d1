// Cassandra's legacy Filter.db (i32 + Java serialization of a BitSet): any bytes parse or give a
// Corrupt status naming the file; a parsed filter re-serializes to exactly the bytes it was read
// from (the JDK stream is fixed), and answers the same single and batched.
#include <vector>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "fuzz_support.h"

using namespace bloomcodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan input(data, size);
  Result<cassandra::LegacyFilter> parsed = cassandra::LegacyFilter::Parse(input, "Filter.db");
  if (!parsed.ok()) {
    fuzz::CheckNamesSource(parsed.status(), "Filter.db");
    return 0;
  }
  const cassandra::LegacyFilter& filter = *parsed;
  const ByteSpan serialized = filter.serialized();
  FUZZ_CHECK(fuzz::SameBytes(serialized, input.first(serialized.size())));
  FUZZ_CHECK(filter.trailing_bytes() == size - serialized.size());
  // Round trip: what we would write for this filter is what we read.
  const ByteVector written = filter.Serialize();
  FUZZ_CHECK(fuzz::SameBytes(written, serialized));
  FUZZ_CHECK(filter.bits_set() <= filter.bit_count());

  if (filter.signed_hash_count() > fuzz::kMaxFuzzedHashCount) return 0;
  const KeyList keys = fuzz::ProbeKeys(input);
  std::vector<std::uint8_t> answers(keys.size());
  filter.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(answers[i] == filter.MayContain(keys[i]));
  }
  return 0;
}
