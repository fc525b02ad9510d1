// LevelDB raw bloom filters: every byte string is a filter to the original reader, so the query
// path must answer for any input without reading outside it, with the reader's edge cases
// (shorter than 2 bytes: absent; k byte 0 or > 30: may match), and the same single, batched and
// from a precomputed hash, for both hash flavours; goleveldb's Contains answers as the 1.18 reader
// for every filter below 512 MiB (every fuzz input).
#include <optional>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::leveldb;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan filter(data, size);
  const KeyList keys = fuzz::ProbeKeys(filter);
  std::vector<std::uint8_t> answers(keys.size());
  for (HashFlavor flavor : {HashFlavor::kUnsignedTail, HashFlavor::kSignedTail}) {
    BloomKeyMayMatchBatch(flavor, keys, filter, answers);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool single = BloomKeyMayMatch(flavor, keys[i], filter);
      FUZZ_CHECK(answers[i] == single);
      FUZZ_CHECK(BloomHashMayMatch(BloomHash(keys[i], flavor), filter) == single);
      if (size < 2) FUZZ_CHECK(!single);
      if (size >= 2 && (filter.back() == 0 || filter.back() > kMaxProbes)) FUZZ_CHECK(single);
      if (flavor == HashFlavor::kUnsignedTail) {
        const std::optional<bool> go = GoLevelDbKeyMayMatch(keys[i], filter);
        FUZZ_CHECK(go.has_value() && *go == single);
      }
    }
    const BloomFilterView view(filter, flavor);
    FUZZ_CHECK(view.bits_set() <= view.bit_count());
    FUZZ_CHECK(view.bit_count() == (size < 2 ? 0 : (std::uint64_t{size} - 1) * 8));
  }
  return 0;
}
