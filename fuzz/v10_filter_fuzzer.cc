// Cassandra 1.0 Filter.db: any bytes either parse or give a Corrupt status naming the file; a
// parsed filter is exactly the input's first 8 + 8W bytes, re-parses to the same filter, and
// answers the same single and batched.
#include <vector>

#include "bloomcodec/cassandra/v10_filter.h"
#include "fuzz_support.h"

using namespace bloomcodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan input(data, size);
  Result<cassandra::V10Filter> parsed = cassandra::V10Filter::Parse(input, "Filter.db");
  if (!parsed.ok()) {
    fuzz::CheckNamesSource(parsed.status(), "Filter.db");
    return 0;
  }
  const cassandra::V10Filter& filter = *parsed;
  const ByteSpan serialized = filter.serialized();
  FUZZ_CHECK(fuzz::SameBytes(serialized, input.first(serialized.size())));
  FUZZ_CHECK(filter.trailing_bytes() == size - serialized.size());
  FUZZ_CHECK(filter.bits_set() <= filter.bit_count());

  // Round trip: the serialized bytes alone parse to the same header and the same answers.
  Result<cassandra::V10Filter> again = cassandra::V10Filter::Parse(serialized, "copy");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->signed_hash_count() == filter.signed_hash_count());
  FUZZ_CHECK(again->word_count() == filter.word_count());
  FUZZ_CHECK(again->trailing_bytes() == 0);

  if (filter.signed_hash_count() > fuzz::kMaxFuzzedHashCount) return 0;
  const KeyList keys = fuzz::ProbeKeys(input);
  std::vector<std::uint8_t> answers(keys.size());
  filter.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(answers[i] == filter.MayContain(keys[i]));
    FUZZ_CHECK(again->MayContain(keys[i]) == filter.MayContain(keys[i]));
  }
  return 0;
}
