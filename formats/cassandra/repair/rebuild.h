// Internal: a new Filter.db for an sstable, from its keys, as the writer of its version builds
// one: sized by that version's getFilter for the actual key count, in the era's layout.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<KeyStream> keys, SstableKeys(sstable));
//   FilterSizing sizing = RecordedOrDefaultSizing(sstable);   // or GivenFpChance(0.001)
//   BLOOMCODEC_ASSIGN_OR_RETURN(RebuiltFilter f, RebuildFilter(*keys, Era::kV40, sizing));
//   f.bytes;   // byte-identical to FilterFactory.getFilter(n, fp) + add every key + serialize
//
// Streamed: one pass counts the keys (none when verify's count is given), a second adds them to
// a filter allocated for that count (the filter itself is the only thing that grows with the
// sstable), a third checks that the result answers every key "may contain". A count that
// differs between the counting and the adding pass (the files changed under us) is an error.
//
// Sizing, per era (what each version's SSTableWriter calls with the key count):
//   before c (0.4 - 0.7 beta)  BloomFilter.getFilter(keyCount, 15): 0.6's table (K <= 8)
//   c .. e (0.7 beta)          the same call on the java.util.BitSet filter (LegacyBloomFilter)
//   f .. hf (0.7 - 1.1)        BloomFilter.getFilter(keyCount, 15); 1.1 tables may carry a
//                              bloom_filter_fp_chance (getFilter(keyCount, fp)), recorded nowhere
//                              in the sstable
//   ia .. me, ScyllaDB, na ..  FilterFactory.getFilter(keyCount, bloom_filter_fp_chance)
//   BTI da                     the same
// Sources (apache/cassandra as stored by the project's search tools): the 0.6 and 0.7
// SSTableWriter constructors and 1.0's IndexWriter (`bf = BloomFilter.getFilter(keyCount, 15)`),
// 1.2's IndexWriter (`fpChance == null ? FilterFactory.getFilter(keyCount, 15) :
// FilterFactory.getFilter(keyCount, fpChance)`), 2.0 and later IndexWriter
// (`FilterFactory.getFilter(keyCount, metadata.getBloomFilterFpChance(), true)`), 2.0's
// CFMetaData.getBloomFilterFpChance ("we disallow bFFPC==null starting in 1.2.1": 0.01, 0.1 for
// LeveledCompactionStrategy), ScyllaDB's mx writer (`get_filter(estimated_partitions,
// schema->bloom_filter_fp_chance())`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"
#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {

// Where the sizing parameter came from.
enum class SizingSource {
  kGiven,          // the caller's (--fp-chance / --bits-per-key)
  kStatistics,     // the sstable's Statistics.db (ja and later, BTI, ScyllaDB)
  kWriterDefault,  // nothing recorded: what the version's writer used by default
};

// One of Cassandra's getFilter overloads: by fp chance, or (before 1.2) by buckets per element.
struct FilterSizing {
  std::optional<double> fp_chance;
  std::optional<std::int32_t> buckets_per_element;
  SizingSource source = SizingSource::kGiven;
  std::string basis;  // why these parameters, for the report
};

FilterSizing GivenFpChance(double fp_chance);
FilterSizing GivenBucketsPerElement(std::int32_t buckets);
// What the writer of `d`'s version used when the sstable records nothing (versions before ja):
// 15 buckets per element before 1.2, fp chance 0.01 for 1.2 (ia .. ic; see the top).
FilterSizing WriterDefaultSizing(const Descriptor& d);

struct RebuiltFilter {
  ByteVector bytes;             // the new Filter.db; empty for 5.0's always-present filter
  std::uint64_t keys = 0;       // the count it was sized for (every key was added)
  std::int32_t hash_count = 0;  // K of the new filter
  std::int64_t words = 0;       // W (64-bit words) of the new filter
  bool always_present = false;  // fp chance 1.0 in the raw-bytes era: a 0-byte Filter.db
};

// The filter of `era` for every key of `keys`. InvalidArgument for parameters the era's writer
// does not take (buckets per element from 1.2 on); Refused where the original refuses (sizing
// limits) or writes no Filter.db at all (fp chance 1.0 before 5.0's layout).
// `expected_keys`: the count verify read (its pass over the same keys), which saves the
// counting pass; a stream that then gives another number is counted and built again.
Result<RebuiltFilter> RebuildFilter(const KeyStream& keys, Era era, const FilterSizing& sizing,
                                    std::optional<std::uint64_t> expected_keys = std::nullopt);

// The same from the keys' CassandraMurmur3 hashes (a repair's tap, cassandra/rebuild_tap.h, in
// any order), every hash then asked of the new filter (CheckEveryKeyPresent's check, in memory).
// nullopt when `era`'s filter is not a Murmur3 one.
Result<std::optional<RebuiltFilter>> RebuildFilterFromHashes(
    std::span<const std::vector<Murmur3Hash>> hashes, Era era, const FilterSizing& sizing);

// Every key of `keys` answered "may contain" by `filter` (Filter.db bytes of `era`); Internal
// naming the first that is not (a bug of ours: the filter was just built from these keys).
Status CheckEveryKeyPresent(const KeyStream& keys, Era era, ByteSpan filter);

}  // namespace bloomcodec::cassandra
