// LevelDB filter blocks: the lenient reader (as LevelDB reads them) answers for any bytes, and
// the strict layout parser either refuses with an offset inside the block or returns a layout
// that the lenient reader agrees with, filter by filter. goleveldb's reading agrees with LevelDB's
// except for a base_lg of 64 or more, where it asks filter 0 (in bounds as well). Basho's bloom2
// reading picks the same filters and answers single and batch probes alike, and its fill never
// counts more bits than its modulus.
#include <vector>

#include "bloomcodec/leveldb/filter_block.h"
#include "fuzz_support.h"
#include "leveldb/basho_bloom.h"

using namespace bloomcodec;
using namespace bloomcodec::leveldb;

namespace {

// Data-block offsets to ask about: small ones, the ends of the first filters, and large ones.
std::vector<std::uint64_t> Offsets(ByteSpan input) {
  std::vector<std::uint64_t> offsets = {0, 1, 2047, 2048, 4096, 1u << 20, ~std::uint64_t{0}};
  if (input.size() >= 8) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | input[i];
    offsets.push_back(v);
    offsets.push_back(v >> 32);
  }
  return offsets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan block(data, size);
  const FilterBlockReader reader(block, HashFlavor::kUnsignedTail);
  const FilterBlockReader go_reader(block, HashFlavor::kUnsignedTail, /*goleveldb=*/true);
  const KeyList keys = fuzz::ProbeKeys(block);
  std::vector<std::uint8_t> answers(keys.size());
  const std::vector<std::uint64_t> offsets = Offsets(block);
  for (std::uint64_t offset : offsets) {
    reader.KeyMayMatchBatch(offset, keys, answers);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      FUZZ_CHECK(answers[i] == reader.KeyMayMatch(offset, keys[i]));
    }
    const FilterBlockReader::Choice choice = reader.FilterFor(offset);
    if (choice.kind == FilterBlockReader::Choice::Kind::kFilter && !choice.filter.empty()) {
      FUZZ_CHECK(choice.filter.data() >= block.data() &&
                 choice.filter.data() + choice.filter.size() <= block.data() + block.size());
    }
    const FilterBlockReader::Choice go = go_reader.FilterFor(offset);
    if (reader.base_lg() < 64) {
      FUZZ_CHECK(go.kind == choice.kind && fuzz::SameBytes(go.filter, choice.filter));
    } else {
      const FilterBlockReader::Choice zero = reader.FilterFor(0);
      FUZZ_CHECK(go.kind == zero.kind && fuzz::SameBytes(go.filter, zero.filter));
    }
  }

  const FilterBlockReader basho(block, HashFlavor::kSignedTail, false, BloomVariant::kBasho2);
  for (std::uint64_t offset : offsets) {
    basho.KeyMayMatchBatch(offset, keys, answers);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      FUZZ_CHECK(answers[i] == basho.KeyMayMatch(offset, keys[i]));
    }
    const FilterBlockReader::Choice choice = basho.FilterFor(offset);
    FUZZ_CHECK(choice.kind == reader.FilterFor(offset).kind);
    if (choice.kind == FilterBlockReader::Choice::Kind::kFilter) {
      const Bloom2Fill fill = Bloom2FillOf(choice.filter);
      FUZZ_CHECK(fill.bits_set <= fill.bits && fill.hash_count <= 30);
    }
  }

  constexpr std::uint64_t kBase = 1000;
  Result<FilterBlockLayout> layout = ParseFilterBlockLayout(block, "000005.ldb", kBase);
  if (!layout.ok()) {
    fuzz::CheckNamesSource(layout.status(), "000005.ldb");
    if (std::optional<std::uint64_t> at = layout.status().offset()) {
      FUZZ_CHECK(*at >= kBase && *at <= kBase + size);
    }
    return 0;
  }
  // A block the strict parser accepts is one the lenient reader uses, with the same filters.
  FUZZ_CHECK(reader.usable());
  FUZZ_CHECK(reader.num_filters() == layout->filters.size());
  FUZZ_CHECK(reader.base_lg() == layout->base_lg);
  FUZZ_CHECK(reader.array_offset() == layout->array_offset);
  for (std::uint64_t offset : offsets) {
    const std::uint64_t index = layout->IndexFor(offset);
    const FilterBlockReader::Choice choice = reader.FilterFor(offset);
    if (index >= layout->filters.size()) {
      FUZZ_CHECK(choice.kind == FilterBlockReader::Choice::Kind::kAlwaysMatch);
      continue;
    }
    const FilterRange range = layout->filters[index];
    FUZZ_CHECK(choice.kind == FilterBlockReader::Choice::Kind::kFilter);
    FUZZ_CHECK(fuzz::SameBytes(choice.filter, block.subspan(range.start, range.size())));
  }
  return 0;
}
