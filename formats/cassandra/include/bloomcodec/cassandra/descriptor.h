// SSTable file names of Cassandra 0.6 - 1.1, and which bloom filter format 1.0 reads for each
// version (io.sstable.Descriptor and SSTableReader).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto d, cassandra::ParseDescriptor("Standard1-hc-12-Filter.db"));
//   if (d.filter_kind() == cassandra::FilterKind::kCurrent) ...   // FilterDb::Parse
//
// Names: `[<ks>-]<cf>-[tmp-][<version>-]<generation>-<Component>`, where a missing version is
// the legacy "a" (0.6), and 1.1 puts the keyspace in front. Versions compare as strings.
//
// Compatibility contract: the version and the filter kind are those the 1.0 Descriptor and
// SSTableReader decide: < c rebuilt in memory from Index.db, c .. e legacy Filter.db, f .. hf
// current Filter.db; ia and later are Murmur3 filters (not read by this module). A missing
// Filter.db means BloomFilter.emptyFilter() (FilterDb::Empty()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

enum class FilterKind {
  kRebuiltFromIndex,  // version < c: legacy filter rebuilt from Index.db, getFilter(keys, 15)
  kLegacy,            // c <= version < f: legacy Filter.db
  kCurrent,           // f <= version < ia: Filter.db of FilterDb
  kNotThisFormat,     // ia and later: Murmur3 filters of Cassandra 1.2+
};

inline constexpr std::string_view kLegacyVersion = "a";

FilterKind FilterKindForVersion(std::string_view version);
std::string_view FilterKindName(FilterKind kind);

struct Descriptor {
  std::string keyspace;      // from the file name (1.1 naming) or empty
  std::string column_family;
  bool temporary = false;
  std::string version;       // "a" when the name has none
  std::int64_t generation = 0;
  std::string component;     // e.g. "Filter.db"

  FilterKind filter_kind() const { return FilterKindForVersion(version); }
  // "hash strings" era (< c): 1.0 does not read Filter.db at all.
  bool has_strings_in_bloom_filter() const { return version < "c"; }
  bool uses_old_bloom_filter() const { return version < "f"; }
};

// Parses the last path component of `path`. InvalidArgument when it is not an SSTable name.
Result<Descriptor> ParseDescriptor(std::string_view path);

}  // namespace bloomcodec::cassandra
