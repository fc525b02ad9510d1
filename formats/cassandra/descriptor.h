// SSTable file names of Cassandra 0.6 - 5.0, and which era's bloom filter each version has
// (io.sstable.Descriptor, SSTableReader, the BIG and BTI format versions; the era table says
// which versions each era covers).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto d, cassandra::ParseDescriptor("Standard1-hc-12-Filter.db"));
//   if (d.era() == cassandra::Era::kV10) ...   // V10Filter::Parse
//   cassandra::ParseDescriptor("nb-1-big-Filter.db")->era();   // Era::kV40
//
// Names, old style (0.6 - 2.1): `[<ks>-]<cf>-[tmp-][<version>-]<generation>-<Component>`, where a
// missing version is "a" (0.6), and 1.1 puts the keyspace in front. New style (2.2 -
// 5.0): `[tmp-|tmplink-]<version>-<id>-<big|bti>-<Component>`, where the id is an int generation
// or (4.1+) a time-based id in base 36 with '_' separators; keyspace and table are the folders
// `<ks>/<table>-<table id>/`. Versions compare as strings.
//
// Compatibility contract: the version and the era are those the Cassandra release that
// wrote the file decides: < c the 0.6 Filter.db (keys hashed as Java Strings; Cassandra 1.0 no
// longer reads it and rebuilds the filter from Index.db), c .. e the legacy Filter.db, f .. hf
// the 1.0 Filter.db; ia .. lb Murmur3 with the old index order, ma .. me (and ScyllaDB's ms, mt,
// which sort before na) the new order (both big-endian longs), BIG na and later and BTI da the
// raw-bytes serialization (BTI versions
// below "b", which Apache Cassandra never wrote, the longs). A missing Filter.db before ia means
// BloomFilter.emptyFilter() (V10Filter::Empty()); from 3.0 on it means fp chance 1.0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/status.h"
#include "cassandra/era_table.h"

namespace bloomcodec::cassandra {

// The version of an old-style name that has none (0.6 wrote no version).
inline constexpr std::string_view kVersionWhenAbsent = "a";

struct Descriptor {
  std::string keyspace;  // from the file name (1.1 naming) or empty
  std::string column_family;
  bool temporary = false;
  std::string version;          // kVersionWhenAbsent when the name has none
  bool version_in_name = true;  // false when the name has none (0.6)
  std::int64_t generation = 0;  // 0 for a 4.1+ time-based id
  std::string generation_id;    // the id as written (decimal or the 4.1+ base-36 id)
  std::string sstable_format;   // "big" or "bti" in new-style names, else empty
  std::string component;        // e.g. "Filter.db"

  // The era of the sstable's Filter.db.
  Era era() const { return EraForVersion(version, sstable_format); }
};

// Parses the last path component of `path`. InvalidArgument when it is not an SSTable name.
// The grammar alone: any version letters, any component (see IsSstableComponent).
Result<Descriptor> ParseDescriptor(std::string_view path);

// Whether `component` (a ".gz" suffix aside) is one that Cassandra, ScyllaDB or DataStax
// writes: Data.db, Index.db, Filter.db, Statistics.db, ... and the secondary index files SI_*.db
// and SAI*.db.
bool IsKnownComponent(std::string_view component);

// What a name that parses as an SSTable name is: an sstable component only when a writer is
// known to have written its version (era_table.h, IsWrittenVersion) and its component is known.
// A name with one of the two known and the other not resembles one closely enough to be worth
// saying why it is skipped; a name with neither (ld.so.conf.d/zz-cuda-13-0.conf: version
// "cuda", component "0.conf"; CommitLog-7-1234.log) only fits the grammar and is not one.
enum class NameKind { kComponent, kLookalike, kOther };
NameKind ClassifyName(const Descriptor& d);
// For a kLookalike: why it is not an sstable component ("version 'pa' is not one ...").
std::string LookalikeReason(const Descriptor& d);

}  // namespace bloomcodec::cassandra
