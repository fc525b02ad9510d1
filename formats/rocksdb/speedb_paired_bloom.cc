// Speedb's paired Bloom filter: trailer, probe, fill and the writer's sizing and pairing, from
// speedb-io/speedb plugin/speedb/paired_filter/speedb_paired_bloom{,_internal}.cc (FORMAT.md).
#include "rocksdb/speedb_paired_bloom.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "codec/popcount.h"

namespace bloomcodec::rocksdb::speedb {

namespace {

constexpr std::uint8_t kPairedBlockBloomType = 1;
constexpr std::uint32_t kMaxProbes = 30;
constexpr std::uint32_t kGoldenRatio32 = 0x9e3779b9U;
// The largest payload Speedb's writer makes (kMaxSupportedSizeNoMetadata).
constexpr std::uint64_t kMaxPayloadBytes = 0xffffffc0U;
constexpr std::uint8_t kPairMask = (1U << kPairIndexBits) - 1;

std::uint32_t NumBlocks(const Trailer& t) { return t.payload_bytes / kBlockBytes; }

// A probed bit; outside the payload (crafted lengths only, see ReadsOutside) it counts as set.
bool BitIsSet(ByteSpan filter, const Trailer& t, std::uint64_t block, std::uint32_t bit) {
  const std::uint64_t byte = block * kBlockBytes + bit / 8;
  return byte >= t.payload_bytes || ((filter[byte] >> (bit % 8)) & 1U) != 0;
}

bool BlockHolds(ByteSpan filter, const Trailer& t, std::uint64_t block, std::uint32_t hash, int set,
                std::uint32_t probes) {
  for (std::uint32_t i = 0; i < probes; ++i, hash *= kGoldenRatio32) {
    if (!BitIsSet(filter, t, block, BitInBlock(hash, set))) return false;
  }
  return true;
}

void SetBits(std::uint8_t* block, std::uint32_t hash, int set, std::uint32_t probes) {
  for (std::uint32_t i = 0; i < probes; ++i, hash *= kGoldenRatio32) {
    const std::uint32_t bit = BitInBlock(hash, set);
    block[bit / 8] |= static_cast<std::uint8_t>(1U << (bit % 8));
  }
}

std::uint32_t PrimaryBlock(std::uint64_t hash, std::uint32_t num_blocks) {
  return static_cast<std::uint32_t>(
      (std::uint64_t{static_cast<std::uint32_t>(hash)} * num_blocks) >> 32);
}

// The block of the smaller in-batch index takes rule 0 (GetHashSetSelector).
int RuleOf(std::uint32_t in_batch, std::uint32_t pair_in_batch) {
  return in_batch < pair_in_batch ? 0 : 1;
}

}  // namespace

Trailer ReadTrailer(ByteSpan filter) {
  Trailer t;
  if (filter.size() <= kTrailerBytes) return t;
  t.payload_bytes = static_cast<std::uint32_t>(filter.size() - kTrailerBytes);
  const std::uint8_t* meta = filter.data() + t.payload_bytes;
  t.num_probes = meta[1] & 31U;
  t.kind = Kind::kAlwaysMatch;
  if (t.num_probes < 1 || t.num_probes > kMaxProbes) {
    t.always_match_reason = "num_probes 0 or 31 is reserved";
  } else if (meta[2] != 0 || meta[3] != 0) {
    t.always_match_reason = "reserved bytes (a future hash seed) are not zero";
  } else if (meta[0] != kPairedBlockBloomType) {
    t.always_match_reason = "a filter type other than 1 (paired block Bloom)";
  } else if (((meta[1] >> 5) & 7U) != 0) {
    t.always_match_reason = "a block size other than 64 bytes";
  } else {
    t.kind = Kind::kPaired;
  }
  return t;
}

bool ReadsOutside(const Trailer& t) {
  return t.kind == Kind::kPaired &&
         (t.payload_bytes < kBlockBytes || t.payload_bytes % kBatchBytes != 0);
}

Status CheckLayout(ByteSpan filter, const Trailer& t, const std::string& source,
                   std::uint64_t filter_offset) {
  if (t.kind != Kind::kPaired) return Status();
  if (t.payload_bytes < kBatchBytes || t.payload_bytes % kBatchBytes != 0) {
    return Status::Corrupt(source, filter_offset + t.payload_bytes,
                           "a Speedb paired Bloom payload of whole 2048-byte batches",
                           std::to_string(t.payload_bytes) + " bytes");
  }
  const std::uint32_t blocks = NumBlocks(t);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const std::uint32_t first = b - b % kBatchBlocks;
    const std::uint32_t pair = filter[std::uint64_t{b} * kBlockBytes] & kPairMask;
    const std::uint32_t back = filter[std::uint64_t{first + pair} * kBlockBytes] & kPairMask;
    if (pair == b % kBatchBlocks || back != b % kBatchBlocks) {
      return Status::Corrupt(source, filter_offset + std::uint64_t{b} * kBlockBytes,
                             "block " + std::to_string(b) +
                                 " of a Speedb paired Bloom filter paired with another block "
                                 "of its batch that names it back",
                             "pair index " + std::to_string(pair) + ", which names " +
                                 std::to_string(back));
    }
  }
  return Status();
}

std::uint32_t BitInBlock(std::uint32_t hash, int set) {
  std::uint32_t bit = set == 0 ? hash >> 23 : (hash & 0x007FC000U) >> 14;
  if (bit >= kPairIndexBits) return bit;
  // Rule 0 scales the hash's low 23 bits, rule 1 its high 23 (Speedb shifts rule 0's left first).
  const std::uint32_t rest = set == 0 ? (hash << 9) >> 9 : hash >> 9;
  return kPairIndexBits + ((kBloomBitsPerBlock * rest) >> 23);
}

bool HashMayMatch(ByteSpan filter, const Trailer& t, std::uint64_t hash) {
  if (t.kind != Kind::kPaired) return t.kind == Kind::kAlwaysMatch;
  const std::uint32_t primary = PrimaryBlock(hash, NumBlocks(t));
  // The pair index: byte 0 of the primary block (outside the payload: 0, and its bits count as
  // set, so the answer is "may match" whatever the pair).
  const std::uint64_t at = std::uint64_t{primary} * kBlockBytes;
  const std::uint32_t pair = at < t.payload_bytes ? (filter[at] & kPairMask) : 0;
  const std::uint32_t in_batch = primary % kBatchBlocks;
  const int rule = RuleOf(in_batch, pair);
  const std::uint32_t probes = t.num_probes / 2;
  const auto high = static_cast<std::uint32_t>(hash >> 32);
  if (!BlockHolds(filter, t, primary, high, rule, probes)) return false;
  const std::uint64_t secondary = std::uint64_t{primary} - in_batch + pair;
  return BlockHolds(filter, t, secondary, high, 1 - rule, probes);
}

std::uint64_t BloomBits(const Trailer& t) {
  return t.kind == Kind::kPaired ? std::uint64_t{NumBlocks(t)} * kBloomBitsPerBlock : 0;
}

std::uint64_t BloomBitsSet(ByteSpan filter, const Trailer& t) {
  if (t.kind != Kind::kPaired) return 0;
  const std::uint64_t blocks = NumBlocks(t);
  std::uint64_t set = PopCountBytes(filter.first(blocks * kBlockBytes));
  for (std::uint64_t b = 0; b < blocks; ++b) {
    set -= static_cast<std::uint64_t>(
        std::popcount(static_cast<std::uint8_t>(filter[b * kBlockBytes] & kPairMask)));
  }
  return set;
}

std::uint32_t NumProbes(int millibits_per_key) {
  // Speedb computes the adjusted bits a key in integers: (mb * 507) / 512 / 1000.
  const std::uint64_t adjusted =
      std::uint64_t(std::max(millibits_per_key, 0)) * kBloomBitsPerBlock / (kBlockBytes * 8) / 1000;
  const double raw = std::log(2.0) * static_cast<double>(adjusted);
  const auto probes = static_cast<std::uint32_t>(std::ceil(raw / 2.0) * 2);
  return std::min(probes, kMaxProbes);
}

std::uint64_t FilterBytes(std::uint64_t num_hashes, int millibits_per_key, bool bottommost) {
  std::uint64_t payload =
      num_hashes * static_cast<std::uint64_t>(std::max(millibits_per_key, 0)) / 8000;
  payload = std::max<std::uint64_t>(payload, kBatchBytes);
  // RoundDownUsableSpace: whole batches, down (at least one) for the bottommost level, else up.
  payload = bottommost ? std::max<std::uint64_t>(payload / kBatchBytes * kBatchBytes, kBatchBytes)
                       : (payload + kBatchBytes - 1) / kBatchBytes * kBatchBytes;
  payload = std::min(payload, kMaxPayloadBytes);
  return payload + kTrailerBytes;
}

ByteVector Build(std::span<const std::uint64_t> hashes, int millibits_per_key, bool bottommost) {
  const std::uint64_t bytes = FilterBytes(hashes.size(), millibits_per_key, bottommost);
  const auto payload = static_cast<std::uint32_t>(bytes - kTrailerBytes);
  const std::uint32_t num_blocks = payload / kBlockBytes;
  const std::uint32_t batches = num_blocks / kBatchBlocks;
  ByteVector out(bytes, 0);
  // Keys per block, counted in 16 bits as Speedb's histogram counts them.
  std::vector<std::array<std::uint16_t, kBatchBlocks>> counts(batches);
  for (std::uint64_t h : hashes) {
    const std::uint32_t block = PrimaryBlock(h, num_blocks);
    ++counts[block / kBatchBlocks][block % kBatchBlocks];
  }
  // Per batch: in-batch indexes sorted by count (stable), the i-th paired with the (31 - i)-th.
  for (std::uint32_t batch = 0; batch < batches; ++batch) {
    std::array<std::uint8_t, kBatchBlocks> order;
    for (std::uint32_t i = 0; i < kBatchBlocks; ++i) order[i] = static_cast<std::uint8_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint8_t a, std::uint8_t b) {
      return counts[batch][a] < counts[batch][b];
    });
    for (std::uint32_t i = 0; i < kBatchBlocks; ++i) {
      const std::uint8_t pair = order[kBatchBlocks - 1 - i];
      out[(std::uint64_t{batch} * kBatchBlocks + order[i]) * kBlockBytes] |= pair;
    }
  }
  const std::uint32_t probes = NumProbes(millibits_per_key) / 2;
  for (std::uint64_t h : hashes) {
    const std::uint32_t primary = PrimaryBlock(h, num_blocks);
    const std::uint32_t in_batch = primary % kBatchBlocks;
    const std::uint32_t pair = out[std::uint64_t{primary} * kBlockBytes] & kPairMask;
    const int rule = RuleOf(in_batch, pair);
    const auto high = static_cast<std::uint32_t>(h >> 32);
    SetBits(out.data() + std::uint64_t{primary} * kBlockBytes, high, rule, probes);
    SetBits(out.data() + (std::uint64_t{primary} - in_batch + pair) * kBlockBytes, high, 1 - rule,
            probes);
  }
  out[payload] = kPairedBlockBloomType;
  out[payload + 1] = static_cast<std::uint8_t>(NumProbes(millibits_per_key));
  return out;
}

}  // namespace bloomcodec::rocksdb::speedb
