// The column-name filter at the start of a Cassandra 1.0 Data.db row. The first byte chooses the
// sstable generation (bit 0: legacy) and the base offset (bits 1..): a filter deep inside a file
// must still report offsets inside the file. The rest is the row.
#include <vector>

#include "bloomcodec/cassandra/row_filter.h"
#include "fuzz_support.h"

using namespace bloomcodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool legacy = (data[0] & 1) != 0;
  const std::uint64_t base = static_cast<std::uint64_t>(data[0] >> 1) << 20;
  const ByteSpan row(data + 1, size - 1);
  Result<cassandra::RowFilter> parsed = cassandra::RowFilter::Parse(row, "Data.db", legacy, base);
  if (!parsed.ok()) {
    fuzz::CheckNamesSource(parsed.status(), "Data.db");
    if (std::optional<std::uint64_t> offset = parsed.status().offset()) {
      FUZZ_CHECK(*offset >= base && *offset <= base + row.size());
    }
    return 0;
  }
  const cassandra::RowFilter& rf = *parsed;
  FUZZ_CHECK(rf.is_legacy() == legacy);
  FUZZ_CHECK(rf.consumed_bytes() <= row.size());
  // The filter lies inside the L bytes after the prefix.
  const ByteSpan inner = row.subspan(4, rf.consumed_bytes() - 4);
  const ByteSpan serialized = legacy ? rf.legacy()->serialized() : rf.v10()->serialized();
  FUZZ_CHECK(fuzz::SameBytes(serialized, inner.first(serialized.size())));

  if (rf.filter().hash_count() > fuzz::kMaxFuzzedHashCount) return 0;
  const KeyList keys = fuzz::ProbeKeys(row);
  std::vector<std::uint8_t> answers(keys.size());
  rf.filter().MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(answers[i] == rf.filter().MayContain(keys[i]));
  }
  return 0;
}
