// RocksDB 7.8's sizing rules, shared by the builders (full_filter_build.cc) and inspect / verify
// (format_codecs.cc, verify_plan.cc). Private to the library.
#pragma once

#include <cstdint>
#include <optional>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"

namespace bloomcodec::rocksdb {

// FastLocalBloomImpl::ChooseNumProbes(millibits_per_key).
int FastLocalProbesFor(int millibits_per_key);
// LegacyNoLocalityBloomImpl::ChooseNumProbes(whole bits_per_key): floor(0.69 b) in [1, 30].
int LegacyProbesFor(int whole_bits_per_key);
// BandingConfigHelper1<1-in-20 failure, 128-bit rows>::GetNumToAdd: the keys RocksDB sizes
// `num_slots` slots for.
std::uint32_t RibbonKeysForSlots(std::uint32_t num_slots);

// What a filter's parameters promise: the bits_per_key range of the policy that writes this
// geometry and the key counts that size implies (inspect's `policy`); nullopt for the kinds
// without such a relation (empty, always-match).
std::optional<Document> PolicyFacts(const FullFilterReader& filter);
// The most keys any such policy would have put in this filter (verify's overfill bound).
std::optional<double> KeysAllowedByPolicy(const FullFilterReader& filter);
// RocksDB's own false-positive expectation for a Ribbon filter (ExpectedFpRate).
double RibbonExpectedFpRate(const FullFilterReader& filter);

// Finish of RocksDB's FastLocalBloom and Ribbon builders with optimize_filters_for_memory when
// AllocateMaybeRounding settled on `filter_bytes` (trailer included) rather than the size the
// keys ask: cut to 3/4 - 15/16 of it while the writing process's rounding balance is negative,
// or grown to what the allocator granted (malloc_usable_size). Everything else is decided as
// for that option: a Ribbon filter's slots, seed and Bloom fallback from the keys, its solution
// laid out in the segments of that size; a Bloom filter's probes from the bits per key of that
// size. The witness tests rebuild such filters of RocksDB 9.7 / 10.5 at their stored size.
// InvalidArgument for the legacy Bloom builder (it does not round), for no keys, and for sizes
// RoundDownUsableSpace never gives (5 + a positive multiple of 64, of 16 for Ribbon).
Result<ByteVector> BuildMemoryOptimizedFilterAtSize(FilterEncoding encoding, double bits_per_key,
                                                    const KeyList& keys,
                                                    std::uint64_t filter_bytes);

}  // namespace bloomcodec::rocksdb
