// SSTable file names of Cassandra 0.6 - 5.0, and which bloom filter format reads each version
// (io.sstable.Descriptor, SSTableReader, the BIG and BTI format versions).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto d, cassandra::ParseDescriptor("Standard1-hc-12-Filter.db"));
//   if (d.filter_kind() == cassandra::FilterKind::kV10) ...   // V10Filter::Parse
//   cassandra::ParseDescriptor("nb-1-big-Filter.db")->murmur3_layout();   // kRawBytes
//
// Names, old style (0.6 - 2.1): `[<ks>-]<cf>-[tmp-][<version>-]<generation>-<Component>`, where a
// missing version is the legacy "a" (0.6), and 1.1 puts the keyspace in front. New style (2.2 -
// 5.0): `[tmp-|tmplink-]<version>-<id>-<big|bti>-<Component>`, where the id is an int generation
// or (4.1+) a time-based id in base 36 with '_' separators; keyspace and table are the folders
// `<ks>/<table>-<table id>/`. Versions compare as strings.
//
// Compatibility contract: the version and the filter kind are those the Cassandra release that
// wrote the file decides: < c the 0.6 Filter.db (keys hashed as Java Strings; Cassandra 1.0 no
// longer reads it and rebuilds the filter from Index.db), c .. e legacy Filter.db, f .. hf
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

#include "bloomcodec/cassandra/murmur3_layout.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

enum class FilterKind {
  kJavaStrings,  // version < c: the 0.6 Filter.db, keys hashed as Java Strings (cassandra-0.6)
  kLegacy,       // c <= version < f: legacy Filter.db
  kV10,          // f <= version < ia: the 1.0 Filter.db (V10Filter)
  kMurmur3,      // ia and later, BTI: Murmur3 in one of three layouts (murmur3_layout.h)
};

// How a Filter.db is read: the kind and, exactly when the kind is kMurmur3, the layout.
struct FilterFormat {
  FilterKind kind = FilterKind::kV10;
  std::optional<Murmur3Layout> murmur3_layout;

  friend bool operator==(const FilterFormat&, const FilterFormat&) = default;
};

inline constexpr std::string_view kLegacyVersion = "a";

// `sstable_format` is "big", "bti" or "" (an old-style name, which is BIG).
FilterKind FilterKindForVersion(std::string_view version, std::string_view sstable_format = "");
// The layout of a version's Murmur3 filter; nullopt before ia (not a Murmur3 filter).
std::optional<Murmur3Layout> Murmur3LayoutForVersion(std::string_view version,
                                                     std::string_view sstable_format = "");
FilterFormat FilterFormatForVersion(std::string_view version, std::string_view sstable_format = "");
// The command line's format name ("cassandra-0.6", "cassandra-legacy", "cassandra-1.0", ...).
std::string_view FilterFormatName(const FilterFormat& format);
// The inverse for the command line's Cassandra Filter.db formats; nullopt for any other name.
std::optional<FilterFormat> FilterFormatForName(std::string_view name);

struct Descriptor {
  std::string keyspace;  // from the file name (1.1 naming) or empty
  std::string column_family;
  bool temporary = false;
  std::string version;          // "a" when the name has none
  std::int64_t generation = 0;  // 0 for a 4.1+ time-based id
  std::string generation_id;    // the id as written (decimal or the 4.1+ base-36 id)
  std::string sstable_format;   // "big" or "bti" in new-style names, else empty
  std::string component;        // e.g. "Filter.db"

  FilterKind filter_kind() const { return FilterKindForVersion(version, sstable_format); }
  std::optional<Murmur3Layout> murmur3_layout() const {
    return Murmur3LayoutForVersion(version, sstable_format);
  }
  FilterFormat filter_format() const { return FilterFormatForVersion(version, sstable_format); }
  // "hash strings" era (< c): 1.0 does not read Filter.db at all.
  bool has_strings_in_bloom_filter() const { return version < "c"; }
  bool uses_old_bloom_filter() const { return version < "f"; }
};

// Parses the last path component of `path`. InvalidArgument when it is not an SSTable name.
Result<Descriptor> ParseDescriptor(std::string_view path);

}  // namespace bloomcodec::cassandra
