// Building RocksDB 7.8 full filters byte for byte: LegacyBloomBitsBuilder,
// FastLocalBloomBitsBuilder and Standard128RibbonBitsBuilder::Finish with
// optimize_filters_for_memory = false (the 7.8 default), and with it on: at the size the keys
// ask, or at a size the writer's allocator and rounding balance chose.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "filter_sizing.h"
#include "legacy_bloom.h"
#include "ribbon_math.h"

namespace bloomcodec::rocksdb {

namespace {

// AddKey's hash, dropped when it equals the previous key's.
void AddCollapsed(FilterEncoding encoding, ByteSpan key, std::vector<std::uint64_t>& hashes) {
  const std::uint64_t h = FilterEntryHash(encoding, key);
  if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
}

constexpr std::uint32_t kLineBits = 512;

// ---- Policy arithmetic (BloomLikeFilterPolicy) ----

int FastLocalProbes(int millibits) {
  if (millibits <= 2080) return 1;
  if (millibits <= 3580) return 2;
  if (millibits <= 5100) return 3;
  if (millibits <= 6640) return 4;
  if (millibits <= 8300) return 5;
  if (millibits <= 10070) return 6;
  if (millibits <= 11720) return 7;
  if (millibits <= 14001) return 8;
  if (millibits <= 16050) return 9;
  if (millibits <= 18300) return 10;
  if (millibits <= 22001) return 11;
  if (millibits <= 25501) return 12;
  if (millibits > 50000) return 24;
  return (millibits - 1) / 2000 - 1;
}

int LegacyProbes(int whole_bits) { return std::clamp(static_cast<int>(whole_bits * 0.69), 1, 30); }

double StandardFpRate(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

// RocksDB's estimate for a cache-local Bloom: the mean of the rates one standard deviation
// above and below the mean line occupancy.
double CacheLocalFpRate(double bits_per_key, int num_probes, int line_bits) {
  if (bits_per_key <= 0.0) return 1.0;
  const double keys_per_line = line_bits / bits_per_key;
  const double stddev = std::sqrt(keys_per_line);
  const double crowded = StandardFpRate(line_bits / (keys_per_line + stddev), num_probes);
  const double uncrowded = StandardFpRate(line_bits / (keys_per_line - stddev), num_probes);
  return (crowded + uncrowded) / 2;
}

// ---- Legacy Bloom ----

struct LegacyGeometry {
  std::uint32_t total_bits = 0;
  std::uint32_t num_lines = 0;
};

LegacyGeometry LegacyGeometryFor(std::uint64_t num_entries, int whole_bits) {
  LegacyGeometry g;
  if (num_entries == 0) return g;
  // Trap: the product is capped so that the bit count (and its 32-bit arithmetic) fits.
  const std::uint64_t total =
      std::min<std::uint64_t>(num_entries * static_cast<std::uint64_t>(whole_bits), 0xffff0000U);
  std::uint32_t lines = static_cast<std::uint32_t>((total + kLineBits - 1) / kLineBits);
  if (lines % 2 == 0) ++lines;  // odd, so more hash bits pick the line
  g.num_lines = lines;
  g.total_bits = lines * kLineBits;
  return g;
}

ByteVector BuildLegacy(int whole_bits, std::span<const std::uint64_t> hashes) {
  const LegacyGeometry g = LegacyGeometryFor(hashes.size(), whole_bits);
  return BuildLegacyBloom(g.num_lines, static_cast<std::uint32_t>(LegacyProbes(whole_bits)),
                          hashes);
}

// ---- FastLocalBloom ----

std::uint64_t FastLocalBytes(std::uint64_t num_entries, int millibits) {
  std::uint64_t raw = (num_entries * static_cast<std::uint64_t>(millibits) + 7999) / 8000;
  raw = std::min<std::uint64_t>(raw, 0xffffffc0U);
  return ((raw + 63) & ~std::uint64_t{63}) + kMetadataBytes;
}

// With optimize_filters_for_memory the probe count follows the size RocksDB settled on
// (GetNumProbes with a rounding balance: payload bits * 1000 / keys), not the configured millibits.
int MemoryOptimizedProbes(std::uint64_t total, std::uint64_t num_entries) {
  return FastLocalProbes(
      static_cast<int>((total - kMetadataBytes) * 8000 / std::max<std::uint64_t>(num_entries, 1)));
}

// FastLocalBloomBitsBuilder::Finish into `total` bytes (trailer included) with `probes` probes.
ByteVector BuildFastLocalAt(std::uint64_t total, int probes,
                            std::span<const std::uint64_t> hashes) {
  const auto len = static_cast<std::uint32_t>(total - kMetadataBytes);
  ByteVector out(total, 0);
  const std::uint32_t lines = len >> 6;
  // The line of the key this far ahead is prefetched for writing: the cache misses of a large
  // filter overlap instead of queueing one after another.
  constexpr std::size_t kAhead = 16;
  const auto line_of = [&](std::uint64_t hash) {
    const auto h1 = static_cast<std::uint32_t>(hash);
    return out.data() + (static_cast<std::size_t>((std::uint64_t{h1} * lines) >> 32) << 6);
  };
  if (len > 0) {
    for (std::size_t k = 0; k < hashes.size(); ++k) {
      if (k + kAhead < hashes.size()) __builtin_prefetch(line_of(hashes[k + kAhead]), 1);
      const std::uint64_t hash = hashes[k];
      std::uint32_t h2 = static_cast<std::uint32_t>(hash >> 32);
      std::uint8_t* line = line_of(hash);
      for (int i = 0; i < probes; ++i, h2 *= 0x9e3779b9U) {
        const std::uint32_t bit = h2 >> 23;
        line[bit >> 3] |= static_cast<std::uint8_t>(1U << (bit & 7));
      }
    }
  }
  out[len] = 0xFF;
  out[len + 1] = 0;
  out[len + 2] = static_cast<std::uint8_t>(probes);
  return out;
}

// `optimize_for_memory`: the probe count follows the rounded size, which is the one the keys ask.
ByteVector BuildFastLocal(int millibits, std::span<const std::uint64_t> hashes,
                          bool optimize_for_memory) {
  const std::uint64_t total = FastLocalBytes(hashes.size(), millibits);
  return BuildFastLocalAt(total,
                          optimize_for_memory ? MemoryOptimizedProbes(total, hashes.size())
                                              : FastLocalProbes(millibits),
                          hashes);
}

// ---- Standard128 Ribbon ----

constexpr std::uint32_t kMaxRibbonEntries = 950000000;

// Entries addable to 2^i slots with a 1-in-20 chance of failure per seed (128-bit rows, no
// smash), measured by RocksDB; 0 = too few slots.
constexpr double kKnownToAddByPow2[18] = {0,       0,       0,       0,       0,       0,
                                          0,       0,       248.851, 499.532, 1001.26, 2003.97,
                                          4005.59, 8000.39, 15966.6, 31828.1, 63447.3, 126506};
constexpr double kFactorPerPow2 = 0.0038;

double NumToAddForPow2(std::uint32_t log2_slots) {
  if (log2_slots < 18) return kKnownToAddByPow2[log2_slots];
  const double final_known_factor = 1.0 * (std::uint32_t{1} << 17) / kKnownToAddByPow2[17];
  const double base_factor = final_known_factor - 17 * kFactorPerPow2;
  const double factor = base_factor + 1.0 * log2_slots * kFactorPerPow2;
  return 1.0 * static_cast<double>(std::uint64_t{1} << log2_slots) / factor;
}

// BandingConfigHelper1<kOneIn20, 128, no smash, not homogeneous>::GetNumSlots.
std::uint32_t ConfigNumSlots(std::uint32_t num_to_add) {
  if (num_to_add == 0) return 0;
  const double log2_num_to_add = std::log(num_to_add) * 1.4426950409;
  auto approx_log2_slots = static_cast<std::uint32_t>(log2_num_to_add + 0.5);
  double lower = NumToAddForPow2(approx_log2_slots);
  double upper;
  if (approx_log2_slots == 0 || lower == 0) return 2 * ribbon::kCoeffBits;
  if (num_to_add < lower) {
    upper = lower;
    --approx_log2_slots;
    lower = NumToAddForPow2(approx_log2_slots);
  } else {
    upper = NumToAddForPow2(approx_log2_slots + 1);
  }
  const double upper_portion = (num_to_add - lower) / (upper - lower);
  const double lower_slots = 1.0 * static_cast<double>(std::uint64_t{1} << approx_log2_slots);
  return static_cast<std::uint32_t>(upper_portion * lower_slots + lower_slots + 0.999999999);
}

std::uint32_t RoundUpNumSlots(std::uint32_t num_slots) {
  std::uint32_t corrected =
      (num_slots + ribbon::kCoeffBits - 1) / ribbon::kCoeffBits * ribbon::kCoeffBits;
  if (corrected == ribbon::kCoeffBits) corrected += ribbon::kCoeffBits;  // never 1 start
  return corrected;
}

// SerializableInterleavedSolution::GetBytesForOneInFpRate.
std::uint64_t RibbonPayloadBytes(std::uint32_t num_slots, double one_in_fp_rate,
                                 std::uint32_t rounding_bias32) {
  const double fp_rate = 1.0 / one_in_fp_rate;
  if (!(one_in_fp_rate > 1.0 && fp_rate < 1.0)) return 16;  // one segment
  if (one_in_fp_rate > static_cast<double>(std::numeric_limits<std::uint32_t>::max())) {
    return std::uint64_t{num_slots} * 4;  // 32 columns everywhere
  }
  const auto rounded = static_cast<std::uint32_t>(one_in_fp_rate);
  const int lower_columns = std::bit_width(rounded) - 1;
  const double lower_fp = std::pow(2.0, -lower_columns);
  const double upper_fp = std::pow(2.0, -(lower_columns + 1));
  const double lower_portion = (fp_rate - upper_fp) / (lower_fp - upper_fp);
  const double rounding_bias = (rounding_bias32 + 0.5) / 4294967296.0;
  const std::uint32_t num_starts = num_slots - ribbon::kCoeffBits + 1;
  const auto upper_start_block =
      static_cast<std::uint32_t>((lower_portion * num_starts + rounding_bias) / ribbon::kCoeffBits);
  const std::uint32_t num_blocks = num_slots / ribbon::kCoeffBits;
  std::uint32_t segments = num_blocks * static_cast<std::uint32_t>(lower_columns);
  segments += num_blocks - upper_start_block;
  return std::uint64_t{segments} * 16;
}

struct RibbonPlan {
  std::uint32_t num_slots = 0;  // 0 = fall back to FastLocalBloom
  std::uint64_t filter_bytes = 0;
};

RibbonPlan PlanRibbon(const FilterPolicyParams& p, std::uint64_t num_entries,
                      std::uint64_t first_hash) {
  RibbonPlan plan;
  if (num_entries > kMaxRibbonEntries) {
    plan.filter_bytes = FastLocalBytes(num_entries, p.millibits_per_key);
    return plan;
  }
  plan.num_slots = RoundUpNumSlots(ConfigNumSlots(static_cast<std::uint32_t>(num_entries)));
  plan.filter_bytes = RibbonPayloadBytes(plan.num_slots, p.desired_one_in_fp_rate,
                                         static_cast<std::uint32_t>(first_hash >> 32)) +
                      kMetadataBytes;
  if (plan.num_slots < 1024) {
    const std::uint64_t bloom = FastLocalBytes(num_entries, p.millibits_per_key);
    if (bloom < plan.filter_bytes) {
      plan.num_slots = 0;
      plan.filter_bytes = bloom;
    }
  }
  return plan;
}

// Gaussian elimination on the fly (RocksDB's "banding"): one row per slot.
class Banding {
 public:
  explicit Banding(std::uint32_t num_slots)
      : coeffs_(num_slots), results_(num_slots), num_starts_(num_slots - ribbon::kCoeffBits + 1) {}

  void Prefetch(std::uint64_t seeded) const {
    const std::uint32_t i = ribbon::Start(seeded, num_starts_);
    __builtin_prefetch(&coeffs_[i], 1);
    __builtin_prefetch(&results_[i], 1);
  }

  bool Add(std::uint64_t seeded) {
    std::uint32_t i = ribbon::Start(seeded, num_starts_);
    ribbon::CoeffRow cr = ribbon::Coefficients(seeded);
    std::uint32_t rr = ribbon::ExpectedResult(seeded);
    for (;;) {
      if (coeffs_[i] == 0) {
        coeffs_[i] = cr;
        results_[i] = rr;
        return true;
      }
      cr ^= coeffs_[i];
      rr ^= results_[i];
      if (cr == 0) return rr == 0;  // dependent: fine only if consistent
      const int skip = CountTrailingZeros(cr);
      i += static_cast<std::uint32_t>(skip);
      cr >>= skip;
    }
  }

  const std::vector<ribbon::CoeffRow>& coeffs() const { return coeffs_; }
  const std::vector<std::uint32_t>& results() const { return results_; }

 private:
  static int CountTrailingZeros(ribbon::CoeffRow v) {
    const auto lo = static_cast<std::uint64_t>(v);
    return lo != 0 ? std::countr_zero(lo)
                   : 64 + std::countr_zero(static_cast<std::uint64_t>(v >> 64));
  }
  std::vector<ribbon::CoeffRow> coeffs_;
  std::vector<std::uint32_t> results_;
  std::uint32_t num_starts_;
};

// Back-substitution into the interleaved layout, last block first.
void BackSubstitute(const Banding& banding, std::uint32_t num_blocks, std::uint8_t* data,
                    std::uint32_t num_segments) {
  const ribbon::Layout layout = ribbon::LayoutFor(num_segments, num_blocks);
  std::uint32_t columns = layout.upper_num_columns;
  if (columns == 0) return;
  std::vector<ribbon::CoeffRow> state(columns, 0);
  std::uint32_t segment = layout.used_segments;
  const auto& coeffs = banding.coeffs();
  const auto& results = banding.results();
  auto substitute_block = [&](std::uint32_t block) {
    const std::uint32_t first_slot = block * ribbon::kCoeffBits;
    for (std::uint32_t i = first_slot + ribbon::kCoeffBits; i > first_slot;) {
      --i;
      for (std::uint32_t j = 0; j < columns; ++j) {
        ribbon::CoeffRow tmp = state[j] << 1;
        const int bit = ribbon::Parity(tmp & coeffs[i]) ^ static_cast<int>((results[i] >> j) & 1U);
        state[j] = tmp | static_cast<ribbon::CoeffRow>(bit);
      }
    }
    segment -= columns;
    for (std::uint32_t j = 0; j < columns; ++j) {
      ribbon::StoreSegment(data + 16 * std::size_t{segment + j}, state[j]);
    }
  };
  std::uint32_t block = num_blocks;
  while (block > layout.upper_start_block) substitute_block(--block);
  --columns;
  while (block > 0) substitute_block(--block);
}

// Where RocksDB's Ribbon builder hands the keys to its FastLocalBloom builder: at the size the
// keys ask, or at `at_size` (optimize_filters_for_memory, the size RocksDB settled on).
ByteVector RibbonFallback(const FilterPolicyParams& p, std::span<const std::uint64_t> hashes,
                          bool optimize_for_memory, std::optional<std::uint64_t> at_size) {
  if (at_size) {
    return BuildFastLocalAt(*at_size, MemoryOptimizedProbes(*at_size, hashes.size()), hashes);
  }
  return BuildFastLocal(p.millibits_per_key, hashes, optimize_for_memory);
}

// `at_size`: the filter's size (trailer included) when RocksDB's AllocateMaybeRounding chose
// one other than the keys ask; the banding (slots, seed) is decided from the keys all the same,
// and the solution is laid out in the segments that size holds.
ByteVector BuildRibbon(const FilterPolicyParams& p, std::span<const std::uint64_t> hashes,
                       bool optimize_for_memory, std::optional<std::uint64_t> at_size = {}) {
  if (hashes.empty()) return {};  // RocksDB's "always false" encoding: zero bytes
  const RibbonPlan plan = PlanRibbon(p, hashes.size(), hashes.front());
  if (plan.num_slots == 0) return RibbonFallback(p, hashes, optimize_for_memory, at_size);
  const std::uint32_t start_seed = static_cast<std::uint32_t>(hashes.front()) & 255U;
  std::uint32_t seed = start_seed;
  std::unique_ptr<Banding> solved;
  do {
    const std::uint32_t raw = ribbon::RawSeed(seed);
    auto banding = std::make_unique<Banding>(plan.num_slots);
    bool ok = true;
    // Rows are touched at random: prefetch the row a few keys ahead (a large banding is far
    // bigger than the caches).
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      if (i + kAhead < hashes.size()) {
        banding->Prefetch(ribbon::SeededHash(hashes[i + kAhead], raw));
      }
      if (!banding->Add(ribbon::SeededHash(hashes[i], raw))) {
        ok = false;
        break;
      }
    }
    if (ok) {
      solved = std::move(banding);
      break;
    }
    seed = (seed + 1) & 255U;
  } while (seed != start_seed);
  if (!solved) return RibbonFallback(p, hashes, optimize_for_memory, at_size);  // 256 seeds failed

  const std::uint64_t filter_bytes = at_size.value_or(plan.filter_bytes);
  ByteVector out(filter_bytes, 0);
  const std::uint32_t num_blocks = plan.num_slots / ribbon::kCoeffBits;
  // RocksDB sizes the segment array from the whole buffer, trailer included (it rounds down).
  BackSubstitute(*solved, num_blocks, out.data(), static_cast<std::uint32_t>(filter_bytes / 16));
  const std::size_t m = out.size() - kMetadataBytes;
  out[m] = 0xFE;
  out[m + 1] = static_cast<std::uint8_t>(seed);
  out[m + 2] = static_cast<std::uint8_t>(num_blocks);
  out[m + 3] = static_cast<std::uint8_t>(num_blocks >> 8);
  out[m + 4] = static_cast<std::uint8_t>(num_blocks >> 16);
  return out;
}

}  // namespace

ByteVector BuildLegacyBloom(std::uint32_t num_lines, std::uint32_t num_probes,
                            std::span<const std::uint64_t> hashes) {
  const std::size_t payload = std::size_t{num_lines} * kLegacyLineBytes;
  ByteVector out(payload + kMetadataBytes, 0);
  if (num_lines != 0) {
    for (std::uint64_t wide : hashes) {
      const auto h = static_cast<std::uint32_t>(wide);
      LegacyLineAdd(out.data() + std::size_t{h % num_lines} * kLegacyLineBytes, h, num_probes);
    }
  }
  out[payload] = static_cast<std::uint8_t>(num_probes);
  for (int i = 0; i < 4; ++i)
    out[payload + 1 + i] = static_cast<std::uint8_t>(num_lines >> (8 * i));
  return out;
}

int FastLocalProbesFor(int millibits_per_key) { return FastLocalProbes(millibits_per_key); }
int LegacyProbesFor(int whole_bits_per_key) { return LegacyProbes(whole_bits_per_key); }

std::uint32_t RibbonKeysForSlots(std::uint32_t num_slots) {
  if (num_slots == 0) return 0;
  const double log2_slots = std::log(num_slots) * 1.4426950409;
  const auto floor_log2 = static_cast<std::uint32_t>(log2_slots);
  if (floor_log2 + 1 < 18) {
    const double ceil_portion =
        1.0 * num_slots / static_cast<double>(std::uint32_t{1} << floor_log2) - 1.0;
    return static_cast<std::uint32_t>(ceil_portion * kKnownToAddByPow2[floor_log2 + 1] +
                                      (1.0 - ceil_portion) * kKnownToAddByPow2[floor_log2]);
  }
  const double final_known_factor = 1.0 * (std::uint32_t{1} << 17) / kKnownToAddByPow2[17];
  const double factor = final_known_factor - 17 * kFactorPerPow2 + log2_slots * kFactorPerPow2;
  return static_cast<std::uint32_t>(num_slots / factor);
}

Result<FilterPolicyParams> PolicyParamsFor(double bits_per_key) {
  if (bits_per_key < 0.5) {
    return Status::InvalidArgument(
        "--bits-per-key below 0.5 means no filter at all in RocksDB (its builder is null)");
  }
  FilterPolicyParams p;
  if (bits_per_key < 1.0) {
    bits_per_key = 1.0;
  } else if (!(bits_per_key < 100.0)) {
    bits_per_key = 100.0;
  }
  p.bits_per_key = bits_per_key;
  p.millibits_per_key = static_cast<int>(bits_per_key * 1000.0 + 0.500001);
  p.desired_one_in_fp_rate =
      1.0 / CacheLocalFpRate(bits_per_key, FastLocalProbes(p.millibits_per_key), 512);
  p.whole_bits_per_key = (p.millibits_per_key + 500) / 1000;
  return p;
}

std::vector<std::uint64_t> CollapsedHashes(FilterEncoding encoding, const KeyList& keys) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) AddCollapsed(encoding, keys[i], hashes);
  return hashes;
}

std::uint64_t FilterEntryHash(FilterEncoding encoding, ByteSpan entry) {
  return encoding == FilterEncoding::kLegacyBloom ? std::uint64_t{LegacyBloomHash(entry)}
                                                  : Hash64(entry);
}

void AppendCollapsedHashes(FilterEncoding encoding, std::span<const ByteSpan> keys,
                           std::vector<std::uint64_t>& hashes) {
  for (const ByteSpan& key : keys) AddCollapsed(encoding, key, hashes);
}

void AppendCollapsedHashes(FilterEncoding encoding, const KeyList& keys,
                           std::vector<std::uint64_t>& hashes) {
  for (std::size_t i = 0; i < keys.size(); ++i) AddCollapsed(encoding, keys[i], hashes);
}

Result<ByteVector> BuildFullFilterFromHashes(FilterEncoding encoding, double bits_per_key,
                                             std::span<const std::uint64_t> hashes,
                                             bool optimize_filters_for_memory) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterPolicyParams p, PolicyParamsFor(bits_per_key));
  switch (encoding) {
    case FilterEncoding::kLegacyBloom: return BuildLegacy(p.whole_bits_per_key, hashes);
    case FilterEncoding::kFastLocalBloom:
      return BuildFastLocal(p.millibits_per_key, hashes, optimize_filters_for_memory);
    case FilterEncoding::kRibbon: return BuildRibbon(p, hashes, optimize_filters_for_memory);
  }
  return Status::InvalidArgument("unknown filter encoding");
}

Result<ByteVector> BuildFullFilter(FilterEncoding encoding, double bits_per_key,
                                   const KeyList& keys, bool optimize_filters_for_memory) {
  const std::vector<std::uint64_t> hashes = CollapsedHashes(encoding, keys);
  return BuildFullFilterFromHashes(encoding, bits_per_key, hashes, optimize_filters_for_memory);
}

Result<ByteVector> BuildMemoryOptimizedFilterAtSize(FilterEncoding encoding, double bits_per_key,
                                                    const KeyList& keys,
                                                    std::uint64_t filter_bytes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterPolicyParams p, PolicyParamsFor(bits_per_key));
  const std::vector<std::uint64_t> hashes = CollapsedHashes(encoding, keys);
  if (encoding == FilterEncoding::kLegacyBloom) {
    return Status::InvalidArgument("the legacy Bloom builder does not round its size for memory");
  }
  if (hashes.empty()) return Status::InvalidArgument("no keys: RocksDB writes an empty filter");
  // The granule of RoundDownUsableSpace: 64-byte lines, or Ribbon's 16-byte segments (unless
  // the keys make the Ribbon builder write Bloom).
  const bool ribbon = encoding == FilterEncoding::kRibbon &&
                      PlanRibbon(p, hashes.size(), hashes.front()).num_slots != 0;
  const std::uint64_t granule = ribbon ? 16 : 64;
  if (filter_bytes <= kMetadataBytes || (filter_bytes - kMetadataBytes) % granule != 0 ||
      filter_bytes - kMetadataBytes > 0xffffffc0U) {
    return Status::InvalidArgument("a filter of " + std::to_string(filter_bytes) +
                                   " bytes is no size RocksDB's rounding gives: expected 5 + a "
                                   "positive multiple of " +
                                   std::to_string(granule));
  }
  if (encoding == FilterEncoding::kFastLocalBloom) {
    return BuildFastLocalAt(filter_bytes, MemoryOptimizedProbes(filter_bytes, hashes.size()),
                            hashes);
  }
  return BuildRibbon(p, hashes, true, filter_bytes);
}

Result<FullFilterSize> SizeFullFilter(FilterEncoding encoding, double bits_per_key,
                                      std::uint64_t num_keys, std::uint64_t first_hash) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterPolicyParams p, PolicyParamsFor(bits_per_key));
  FullFilterSize s;
  auto fast_local = [&] {
    s.kind = FullFilterKind::kFastLocalBloom;
    s.filter_bytes = FastLocalBytes(num_keys, p.millibits_per_key);
    s.num_probes = static_cast<std::uint32_t>(FastLocalProbes(p.millibits_per_key));
  };
  switch (encoding) {
    case FilterEncoding::kLegacyBloom: {
      const LegacyGeometry g = LegacyGeometryFor(num_keys, p.whole_bits_per_key);
      s.kind = FullFilterKind::kLegacyBloom;
      s.filter_bytes = g.total_bits / 8 + kMetadataBytes;
      s.num_probes = static_cast<std::uint32_t>(LegacyProbes(p.whole_bits_per_key));
      s.num_lines = g.num_lines;
      break;
    }
    case FilterEncoding::kFastLocalBloom: fast_local(); break;
    case FilterEncoding::kRibbon: {
      if (num_keys == 0) {
        s.kind = FullFilterKind::kEmpty;
        break;
      }
      const RibbonPlan plan = PlanRibbon(p, num_keys, first_hash);
      if (plan.num_slots == 0) {
        fast_local();
        break;
      }
      s.kind = FullFilterKind::kRibbon;
      s.filter_bytes = plan.filter_bytes;
      s.num_slots = plan.num_slots;
      s.num_blocks = plan.num_slots / ribbon::kCoeffBits;
      break;
    }
  }
  // What a reader makes of it: 5 bytes (a Bloom filter of no keys) is the empty filter.
  if (s.filter_bytes <= kMetadataBytes) s.kind = FullFilterKind::kEmpty;
  return s;
}

}  // namespace bloomcodec::rocksdb
