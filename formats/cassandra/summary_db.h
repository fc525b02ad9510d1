// Internal: the key count an sstable's Summary.db records, and the count verify holds an Index.db
// or Partitions.db against (the sstable's own Statistics.db, else its Summary.db).
//
//   std::optional<cassandra::SummaryCount> n = cassandra::RecordedSummaryCount(bytes, "nb");
//   n->least;  // the fewest partitions the writer can have indexed: (S - 1) * I + 1
//   n->about;  // S * I
//
// Layout (IndexSummary.IndexSummarySerializer, versions ka and later of the BIG format; BTI
// has no Summary.db): i32 BE minIndexInterval I, i32 BE entry count E, i64 BE size of the
// offsets and entries that follow, i32 BE sampling level L (1 .. 128), i32 BE size at full
// sampling S, then E little-endian offsets and the entries, then the first and last keys. The
// writer (IndexSummaryBuilder.build) sets S = ceil(keys written / I), and downsampling keeps it,
// so the partitions indexed number (S - 1) * I + 1 .. S * I. Only the header is read.
//
// Compatibility contract: a count only from a header Cassandra's deserializer would accept and
// whose sizes agree (I >= 1, 1 <= E <= S, 1 <= L <= 128, the offsets and entries inside the
// file); anything else records no count (nullopt), never a finding by itself: CheckStatistics
// and the index reader judge damage. ScyllaDB's writer (a Scylla.db beside it) sized S from its
// sampled entries in older releases, so a ScyllaDB Summary.db is no evidence of a key count.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "cassandra/filter_keys.h"
#include "cassandra/verify.h"

namespace bloomcodec::cassandra {

struct SummaryCount {
  std::uint64_t least = 0;  // (S - 1) * I + 1
  std::uint64_t about = 0;  // S * I
};

std::optional<SummaryCount> RecordedSummaryCount(ByteSpan file, std::string_view version);

// verify's recorded count for `keys`, the keys of `sstable`'s Index.db (or, `trie_index`, its
// Partitions.db): Statistics.db's partition count where it records one (statistics_db.h), else
// Summary.db's least count (a Cassandra sstable of ka or later). Nothing when neither records one.
void ExpectIndexCount(const SstableFiles& sstable, bool trie_index, FilterKeys& keys);

}  // namespace bloomcodec::cassandra
