// Cassandra / ScyllaDB sstables for the repair tests, written here from the format notes (no
// original writer of 1.2 - 5.0 runs in the tests): Index.db (or Partitions.db, Rows.db and a
// compressed Data.db), Statistics.db in the version's layout with the fp chance it records,
// TOC.txt, a digest, a summary and Data.db stand-ins, and a Filter.db in a chosen state (sound,
// CQLSSTableWriter's saturated 16 bytes, missing keys, absent).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"

namespace bloomcodec::testing {

enum class FilterState {
  kSound,        // FilterFactory.getFilter(n, recorded fp) with every key
  kSaturated16,  // K 7, one word, every bit set: CQLSSTableWriter's (CASSANDRA-21423)
  kMissingKeys,  // sized right, but every fourth key left out: false negatives
  kAbsent,       // no Filter.db (TOC.txt still lists it)
};

struct SstableRecipe {
  std::string version = "nb";
  std::string format = "big";  // "big", "bti", or "" for the old naming (ks-cf-<v>-1-...)
  std::size_t keys = 120;
  double recorded_fp = 0.01;  // what Statistics.db records (versions ja and later)
  FilterState filter = FilterState::kSaturated16;
  bool scylla_db = false;       // a Scylla.db (without component digests)
  bool scylla_digests = false;  // ... with a ComponentsDigests entry
  unsigned seed = 1;
};

struct MadeSstable {
  std::string table_dir;                // <root>/ks/t-<32 hex>
  std::string prefix;                   // table_dir + "/" + the component prefix
  std::vector<ByteVector> keys;         // what the writer gave the filter, in order
  std::vector<std::string> components;  // every component file written
};

// Writes the sstable into `root`/ks/t-0123456789abcdef0123456789abcdef/.
MadeSstable MakeSstable(const std::string& root, const SstableRecipe& recipe);

// Statistics.db of `version` recording `fp` (ja, jb: 2.0's record; ka and later: the table of
// contents, with the 4.0+ CRC32s from na and for BTI). Written independently of the library.
ByteVector StatisticsFile(const std::string& version, const std::string& format, double fp);

// The keys of an Index.db in the layout of versions up to hf (u16 length, key, i64 position),
// read here without the library.
std::vector<ByteVector> KeysOfOldIndexDb(ByteSpan file);

// Every file under `dir` (recursively, relative path) with its bytes.
std::map<std::string, ByteVector> FilesUnder(const std::string& dir);

ByteVector ReadAll(const std::string& path);
void WriteAll(const std::string& path, ByteSpan bytes);

}  // namespace bloomcodec::testing
