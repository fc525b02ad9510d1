// Internal: the era table, the one place that lists the Cassandra family's eras
// (bloomcodec/cassandra/era.h) and what each is: its format name, the sstable versions it covers,
// its layout, its hash, its index order and the byte order of its words. Every lookup goes
// through it, as zstd reaches the decoder of each old format version through one switch: a
// version's era (descriptor.h), a codec's era, an era's codec. Each era's filter lives in its own
// folder with the same file names for the same roles (filter.cc, hash.cc, format_codecs.cc,
// inspect.cc).
//
//   const EraFacts& v30 = Facts(Era::kV30);   // v30.name == "cassandra-3.0", v30.order == kNew
//   EraForVersion("nb", "big");               // Era::kV40
//   Codec(Era::kV12)->Build(keys, params);    // the cassandra-1.2 codec
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

// How an era's filter is serialized.
enum class Layout {
  kJavaBitSet,  // i32 BE K, then one java.util.BitSet in Java Object Serialization (77 + 8W bytes)
  kLongs,       // i32 BE K, i32 BE W, W longs (8W bytes)
  kRowLongs,    // i32 BE length L, then kLongs in those L bytes (a Data.db row's column filter)
  kRawBytes,    // i32 BE K, i32 BE W, the bit set's 8W bytes as in memory; 0 bytes: always present
};

// The hash of a key's bit indexes.
enum class KeyHash {
  kMurmur2x32JavaString,  // MurmurHash2 32-bit of the key as a Java String, getBytes("UTF-16")
  kMurmur2x32,            // MurmurHash2 32-bit (MurmurHash.hash32), indexes in Java int arithmetic
  kMurmur2x64,            // MurmurHash64A (MurmurHash.hash64), indexes in Java long arithmetic
  kMurmur3,               // MurmurHash3 x64_128 with Java's sign-extended tail (hash3_x64_128)
};

// How the bytes of a 64-bit word are stored.
enum class WordOrder { kBigEndian, kLittleEndian };

struct EraFacts {
  Era era;
  std::string_view name;     // the command line's --format
  std::string_view summary;  // what `bloomcodec --help` says of it
  // The sstable component the filter is in: "Filter.db", or "Data.db" (the row filter, at the
  // start of each row). A file name's version names a Filter.db era only.
  std::string_view component;
  // The sstable versions (as the writers name them, compared as strings): the first, which begins
  // the era (every version from it up to the next era's first is this era's), and the last any
  // release wrote. In BTI names, versions from bti_first_version on ("" for an era without BTI).
  std::string_view first_version;
  std::string_view last_version;
  std::string_view bti_first_version;
  Layout layout;
  KeyHash hash;
  IndexOrder order;
  WordOrder word_order;
  // Makes the era's codec (its folder's format_codecs.cc); called once per era, by Codec.
  std::unique_ptr<FormatCodec> (*make_codec)(Era era);
};

// The codecs of the era folders.
std::unique_ptr<FormatCodec> MakeV10Codec(Era era);
std::unique_ptr<FormatCodec> MakeLegacyCodec(Era era);
std::unique_ptr<FormatCodec> MakeV06Codec(Era era);
std::unique_ptr<FormatCodec> MakeV10RowCodec(Era era);
std::unique_ptr<FormatCodec> MakeMurmur3Codec(Era era);

// In Era's order, which is the command line's order of the formats.
inline constexpr EraFacts kEras[] = {
    {Era::kV10, "cassandra-1.0",
     "Cassandra Filter.db of SSTable versions f .. hf (0.7 - 1.1): i32 hash count, i32 word "
     "count, BE i64 words",
     "Filter.db", "f", "hf", "", Layout::kLongs, KeyHash::kMurmur2x64, IndexOrder::kOld,
     WordOrder::kBigEndian, MakeV10Codec},
    {Era::kLegacy, "cassandra-legacy",
     "Cassandra Filter.db of SSTable versions c .. e: i32 hash count + Java-serialized "
     "java.util.BitSet",
     "Filter.db", "c", "e", "", Layout::kJavaBitSet, KeyHash::kMurmur2x32, IndexOrder::kOld,
     WordOrder::kBigEndian, MakeLegacyCodec},
    {Era::kV06, "cassandra-0.6",
     "Cassandra Filter.db of SSTable versions before c (0.4 - 0.7 beta): the legacy bytes, keys "
     "hashed as Java Strings (String.getBytes(\"UTF-16\"))",
     "Filter.db", "a", "b", "", Layout::kJavaBitSet, KeyHash::kMurmur2x32JavaString,
     IndexOrder::kOld, WordOrder::kBigEndian, MakeV06Codec},
    {Era::kV10Row, "cassandra-1.0-row",
     "the per-row column-name filter of a 1.0 Data.db row: i32 BE length, then a serialized "
     "filter (getFilter(columns, 4))",
     "Data.db", "f", "hf", "", Layout::kRowLongs, KeyHash::kMurmur2x64, IndexOrder::kOld,
     WordOrder::kBigEndian, MakeV10RowCodec},
    {Era::kV12, "cassandra-1.2",
     "Cassandra Filter.db of versions ia .. lb (1.2 - 2.2): Murmur3, old index order, BE i64 "
     "words",
     "Filter.db", "ia", "lb", "", Layout::kLongs, KeyHash::kMurmur3, IndexOrder::kOld,
     WordOrder::kBigEndian, MakeMurmur3Codec},
    // ScyllaDB's ms and mt sort between me and na: this era too. BTI versions before b (none
    // released) have BtiFormat's hasOldBfFormat, the 3.0 layout.
    {Era::kV30, "cassandra-3.0", "versions ma .. me (3.x): Murmur3, new index order, BE i64 words",
     "Filter.db", "ma", "mt", "a", Layout::kLongs, KeyHash::kMurmur3, IndexOrder::kNew,
     WordOrder::kBigEndian, MakeMurmur3Codec},
    {Era::kV40, "cassandra-4.0",
     "versions na .. oa and BTI da (4.0 - 5.0): Murmur3, new index order, the bit set's raw "
     "bytes",
     "Filter.db", "na", "oa", "b", Layout::kRawBytes, KeyHash::kMurmur3, IndexOrder::kNew,
     WordOrder::kLittleEndian, MakeMurmur3Codec},
};
inline constexpr std::size_t kEraCount = std::size(kEras);

constexpr std::size_t EraIndex(Era era) { return static_cast<std::size_t>(era); }
constexpr const EraFacts& Facts(Era era) { return kEras[EraIndex(era)]; }

// The era of a Filter.db whose name has `version` (letters; versions compare as strings) and
// `sstable_format` ("big", "bti", or "" for an old-style name, which is BIG): the era with the
// latest first version at or below it. A version below every era's (only "" and the like) is the
// first era's, 0.6.
constexpr Era EraForVersion(std::string_view version, std::string_view sstable_format = "") {
  const bool bti = sstable_format == "bti";
  // BtiFormat reads version "ab" as "b" (its mapAb) before it compares.
  if (bti && version == "ab") version = "b";
  const EraFacts* found = nullptr;
  const EraFacts* lowest = nullptr;
  for (const EraFacts& e : kEras) {
    const std::string_view first = bti ? e.bti_first_version : e.first_version;
    if (e.component != "Filter.db" || (bti && first.empty())) continue;
    if (lowest == nullptr || first < (bti ? lowest->bti_first_version : lowest->first_version)) {
      lowest = &e;
    }
    if (first <= version &&
        (found == nullptr || first > (bti ? found->bti_first_version : found->first_version))) {
      found = &e;
    }
  }
  return (found != nullptr ? found : lowest)->era;
}

// The sstable versions writers are known to have written, by naming (FORMAT.md, "Version
// letters"): a name whose version is none of these is not an sstable we read (verify skips it
// with an info finding rather than guess its layout). Sources: Apache Cassandra's
// Descriptor / BigFormat / BtiFormat version notes, ScyllaDB's sstables/version.hh, DataStax's
// BtiFormat (datastax/cassandra).
// Old-style names (0.6 - 2.1; ScyllaDB's ka): "a" is what a name without a version means (0.6).
inline constexpr std::string_view kOldNameVersions[] = {"a",  "b",  "c",  "d",  "e",  "f",  "g",
                                                        "h",  "hb", "hc", "hd", "he", "hf", "ia",
                                                        "ib", "ic", "ja", "jb", "ka"};
// BIG names (2.2 - 5.0): Cassandra's la .. oa, ScyllaDB's ms and mt (trie-indexed).
inline constexpr std::string_view kBigVersions[] = {"la", "lb", "ma", "mb", "mc", "md", "me",
                                                    "ms", "mt", "na", "nb", "nc", "oa"};
// BTI names: DataStax's DSE 6.0 - 6.8 (aa, ac, ad; b and ab, its pre-release 6.8; ba, bb), its
// converged Cassandra (ca, cb, cc), and Cassandra 5.0's da.
inline constexpr std::string_view kBtiVersions[] = {"aa", "ab", "ac", "ad", "b", "ba",
                                                    "bb", "ca", "cb", "cc", "da"};

// Whether `version` is one a writer is known to have written in names of `sstable_format`
// ("big", "bti", or "" for an old-style name).
constexpr bool IsWrittenVersion(std::string_view version, std::string_view sstable_format) {
  const auto in = [&](const auto& list) {
    for (std::string_view v : list) {
      if (v == version) return true;
    }
    return false;
  };
  if (sstable_format == "bti") return in(kBtiVersions);
  if (sstable_format == "big") return in(kBigVersions);
  return in(kOldNameVersions);
}

// The codec of an era (made once, by the era's make_codec).
const FormatCodec* Codec(Era era);
// The era of a Cassandra codec; nullopt for any other.
std::optional<Era> EraOf(const FormatCodec* codec);
// Every era's codec, in the table's order (the command line's).
std::span<const FormatCodec* const> Formats();

// The table is indexed by Era.
consteval bool TableInEraOrder() {
  for (std::size_t i = 0; i < kEraCount; ++i) {
    if (EraIndex(kEras[i].era) != i) return false;
  }
  return true;
}
static_assert(TableInEraOrder(), "kEras lists the eras in Era's order");

}  // namespace bloomcodec::cassandra
