// The statistics of an SST's filter (one full filter, or the sum over partitions), shared by
// inspect and verify, and the kind of filter a table holds (repair). Private to the library.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

struct SstFilterStats {
  std::uint64_t filters = 0;  // 1, or the number of partitions
  std::uint64_t bits = 0;
  std::uint64_t bits_set = 0;
  std::uint32_t hash_count = 0;
  bool ribbon = false;              // any Ribbon filter (its fill says nothing of its fp rate)
  bool always_match = false;        // any filter that answers 1 for everything
  double fp_rate = 0;               // fill^k for Bloom, measured for Ribbon, 1 for always-match
  std::uint64_t measured_with = 0;  // synthetic absent keys used (0: from the fill)
};

// Synthetic absent keys for measuring: 24 bytes each, a prefix no real key is likely to carry.
inline constexpr std::uint64_t kFpMeasureKeys = 1 << 16;
// The first `count` of those keys (a fixed stream: the same on every run).
KeyList SyntheticAbsentKeys(std::size_t count);

Result<SstFilterStats> ComputeSstFilterStats(const SstReader& sst);
// The same of full filters given by their contents (one, or a partitioned filter's partitions),
// for filters not yet part of a table (a repair's dry run reads a rewrite's new partitions).
Result<SstFilterStats> FullFilterStats(std::span<const ByteSpan> filters, std::string_view source,
                                       FilterPolicyFamily family = FilterPolicyFamily::kBuiltin);

// The kind of filter a rebuild of `sst` keeps. From RocksDB 7.0 the policy's name says it
// ("ribbonfilter"; "bloomfilter": the Bloom of the table's format_version, legacy below 5).
// Before, every built-in kind was recorded as "rocksdb.BuiltinBloomFilter" (and Ribbon policies
// wrote Ribbon or FastLocalBloom whatever the format_version): the filter's trailer tells (the
// full filter; Ribbon when any partition is, else the first partition's kind). Neither: the
// Bloom of the format_version.
FilterEncoding StoredFilterEncoding(const SstReader& sst);

// The rocksdb.filter.policy a rebuilt filter of `encoding` records in `sst`: the name the
// table's writer gives it, "rocksdb.BuiltinBloomFilter" when the table records that name (RocksDB
// before 7.0, for every built-in kind), else "bloomfilter" or "ribbonfilter" (7.0 on).
std::string_view RebuiltFilterPolicyName(const SstReader& sst, FilterEncoding encoding);

}  // namespace bloomcodec::rocksdb
