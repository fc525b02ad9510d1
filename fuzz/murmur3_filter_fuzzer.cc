// Cassandra 1.2 - 5.0 Filter.db (byte 0 picks the variant: cassandra-1.2, -3.0, -4.0; the rest
// is the file): any bytes either parse or give a Corrupt status naming the file at an offset
// inside it; a parsed filter is the input's first 8 + 8W bytes (0 for 5.0's always-present
// file), re-parses to the same filter and answers the same single and batched; 3.0 <-> 4.0
// re-serialization round-trips and keeps every answer.
#include <vector>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::cassandra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr Era kEras[] = {Era::kV12, Era::kV30, Era::kV40};
  const Era era = kEras[data[0] % 3];
  const ByteSpan input(data + 1, size - 1);
  Result<Murmur3Filter> parsed = Murmur3Filter::Parse(input, "Filter.db", era);
  if (!parsed.ok()) {
    fuzz::CheckNamesSource(parsed.status(), "Filter.db");
    const std::optional<std::uint64_t> at = parsed.status().offset();
    FUZZ_CHECK(at.has_value() && *at <= input.size());
    return 0;
  }
  const Murmur3Filter& filter = *parsed;
  const ByteSpan serialized = filter.serialized();
  FUZZ_CHECK(fuzz::SameBytes(serialized, input.first(serialized.size())));
  FUZZ_CHECK(filter.trailing_bytes() == input.size() - serialized.size());
  FUZZ_CHECK(filter.bits_set() <= filter.bit_count());
  FUZZ_CHECK(filter.always_present() == input.empty());

  Result<Murmur3Filter> again = Murmur3Filter::Parse(serialized, "copy", era);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->signed_hash_count() == filter.signed_hash_count());
  FUZZ_CHECK(again->word_count() == filter.word_count());

  const Status lookups = filter.CheckLookups("Filter.db");
  FUZZ_CHECK(lookups.ok() == (filter.signed_hash_count() <= kIndexArrayLength));
  if (!lookups.ok()) {
    fuzz::CheckNamesSource(lookups, "Filter.db");
    return 0;
  }
  const KeyList keys = fuzz::ProbeKeys(input);
  std::vector<std::uint8_t> answers(keys.size());
  filter.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(answers[i] == (filter.MayContain(keys[i]) ? 1 : 0));
  }
  if (era == Era::kV12 || filter.always_present()) return 0;
  const Era other = era == Era::kV40 ? Era::kV30 : Era::kV40;
  Result<ByteVector> swapped = SwapMurmur3Serialization(input, "Filter.db", era, other);
  FUZZ_CHECK(swapped.ok() && swapped->size() == serialized.size());
  Result<Murmur3Filter> converted = Murmur3Filter::Parse(*swapped, "swapped", other);
  FUZZ_CHECK(converted.ok());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(converted->MayContain(keys[i]) == (answers[i] == 1));
  }
  Result<ByteVector> back = SwapMurmur3Serialization(*swapped, "swapped", other, era);
  FUZZ_CHECK(back.ok() && fuzz::SameBytes(*back, serialized));
  return 0;
}
