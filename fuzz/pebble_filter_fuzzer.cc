// Pebble's table filters. The input (after its first byte) is read as a Bloom filter and as a
// binary fuse filter: each either reads, and then its single, batched (key list and spans) and
// from-the-hash answers agree and short filters answer absent, or is refused naming the file
// and an offset inside it. Inspect works on what reads; dump -> undump gives the bytes back for
// anything. Then keys cut from the input (first byte: sizes and widths) are built into both
// kinds: every key must pass, and the Bloom filter must be rocksdb-bloom-legacy's bytes where
// Pebble and RocksDB agree.
#include <algorithm>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "fuzz_support.h"
#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"
#include "pebble/format_codecs.h"
#include "pebble/inspect.h"

using namespace bloomcodec;
using namespace bloomcodec::pebble;

namespace {

constexpr std::string_view kSource = "fuzz.bin";

template <typename Reader, typename HashOf>
void CheckAnswers(const Reader& f, const KeyList& keys, HashOf hash_of) {
  std::vector<std::uint8_t> batch(keys.size()), spans(keys.size());
  f.MayContainBatch(keys, batch);
  std::vector<ByteSpan> views;
  for (std::size_t i = 0; i < keys.size(); ++i) views.push_back(keys[i]);
  f.MayContainBatch(std::span<const ByteSpan>(views), spans);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool single = f.MayContain(keys[i]);
    FUZZ_CHECK(batch[i] == single && spans[i] == single);
    FUZZ_CHECK(f.HashMayMatch(hash_of(keys[i])) == single);
    if (f.empty()) FUZZ_CHECK(!single);
  }
  FUZZ_CHECK(f.bits_set() <= f.bit_count());
}

void CheckRoundTrip(const FormatCodec* codec, ByteSpan filter) {
  Result<Document> dump = codec->Dump(filter, kSource);
  FUZZ_CHECK(dump.ok());
  Result<ByteVector> back = codec->Undump(dump.value(), kSource);
  FUZZ_CHECK(back.ok() && back->size() == filter.size() &&
             std::equal(back->begin(), back->end(), filter.begin()));
}

void ReadAsBoth(ByteSpan filter) {
  const KeyList keys = fuzz::ProbeKeys(filter);
  Result<BloomReader> bloom = BloomReader::Parse(filter, kSource);
  fuzz::CheckNamesSourceAndOffset(bloom.status(), kSource, filter.size());
  FUZZ_CHECK(bloom.ok() || filter.size() > kBloomTrailerBytes);
  if (bloom.ok()) {
    CheckAnswers(*bloom, keys, [](ByteSpan k) { return BloomKeyHash(k); });
    FUZZ_CHECK(InspectBloom(filter, kSource).ok());
  }
  CheckRoundTrip(BloomCodec(), filter);

  Result<BinaryFuseReader> fuse = BinaryFuseReader::Parse(filter, kSource);
  fuzz::CheckNamesSourceAndOffset(fuse.status(), kSource, filter.size());
  FUZZ_CHECK(fuse.ok() || filter.size() > kBinaryFuseTrailerBytes);
  if (fuse.ok()) {
    CheckAnswers(*fuse, keys, [](ByteSpan k) { return BinaryFuseHash(k); });
    FUZZ_CHECK(fuse->fingerprints().size() + 3 >= fuse->expected_fingerprint_bytes() ||
               fuse->empty());
    FUZZ_CHECK(InspectBinaryFuse(filter, kSource).ok());
  }
  CheckRoundTrip(BinaryFuseCodec(), filter);
}

// Keys cut from the input: each takes (its first byte % 9) bytes; at most 300.
KeyList KeysFrom(ByteSpan input) {
  KeyList keys;
  std::size_t at = 0;
  while (at < input.size() && keys.size() < 300) {
    const std::size_t len = std::min<std::size_t>(input[at] % 9, input.size() - at - 1);
    keys.Add(input.subspan(at + 1, len));
    at += 1 + len;
  }
  return keys;
}

void BuildBoth(std::uint8_t how, ByteSpan input) {
  const KeyList keys = KeysFrom(input);
  BloomPolicy policy;
  policy.bits_per_key = 1 + how % 24;
  policy.probes = (how & 0x20) != 0 ? BloomProbes::kTable : BloomProbes::kRounded;
  policy.flavor = (how & 0x40) != 0 ? HashFlavor::kUnsignedTail : HashFlavor::kSignedTail;
  Result<std::optional<ByteVector>> bloom = BuildBloom(policy, keys);
  FUZZ_CHECK(bloom.ok() && bloom->has_value() == !keys.empty());
  if (bloom->has_value()) {
    Result<BloomReader> r = BloomReader::Parse(**bloom, kSource, policy.flavor);
    FUZZ_CHECK(r.ok());
    for (std::size_t i = 0; i < keys.size(); ++i) FUZZ_CHECK(r->MayContain(keys[i]));
    if (policy.probes == BloomProbes::kRounded && policy.flavor == HashFlavor::kSignedTail) {
      Result<ByteVector> rocks = rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom,
                                                          policy.bits_per_key, keys);
      FUZZ_CHECK(rocks.ok() && *rocks == **bloom);
    }
  }
  static constexpr std::uint32_t kWidths[] = {4, 8, 10, 12, 16};
  const std::uint32_t bits = kWidths[(how >> 2) % 5];
  Result<std::optional<ByteVector>> fuse = BuildBinaryFuse(bits, keys);
  FUZZ_CHECK(fuse.ok() && fuse->has_value() == !keys.empty());
  if (fuse->has_value()) {
    Result<BinaryFuseReader> r = BinaryFuseReader::Parse(**fuse, kSource);
    FUZZ_CHECK(r.ok() && r->fingerprint_bits() == bits);
    FUZZ_CHECK(r->fingerprints().size() == r->expected_fingerprint_bytes());
    for (std::size_t i = 0; i < keys.size(); ++i) FUZZ_CHECK(r->MayContain(keys[i]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteSpan rest(data + 1, size - 1);
  ReadAsBoth(rest);
  if ((data[0] & 0x80) != 0) BuildBoth(data[0], rest);
  return 0;
}
