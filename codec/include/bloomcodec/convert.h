// convert: re-encode a filter losslessly where its bits carry over, rebuild it from its keys
// where they cannot, or rewrite the filter block of a LevelDB table.
//
//   bloomcodec::ConvertInput in{path, file.bytes(), bloomcodec::FindFormat("cassandra-legacy")};
//   bloomcodec::ConvertOptions options;
//   options.to = bloomcodec::FindFormat("cassandra-1.0");
//   options.params.buckets_per_element = 15;
//   options.keys = &keys;                        // the legacy filter's keys
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::Conversion c, bloomcodec::Convert(in, options));
//   // c.how == "rebuilt", c.files[0].bytes == BuildV10Filter(keys, spec)
//
// What carries over losslessly (how = "lossless"): a dump document back to its format; any
// format to itself; cassandra-1.0 <-> cassandra-1.0-row (the same filter bytes, the length
// prefix added or removed); a filter block (or a table's filter block) split into its raw filters
// (`split`: one file per filter plus manifest.json), and a split manifest joined again; a table's
// filter block extracted as leveldb-filter-block. Everything else needs the filter's keys
// (how = "rebuilt"): a different hash (legacy Cassandra -> 1.0, LevelDB 1.17 -> 1.18) or a
// different size. A table with --bits-per-key / --no-filter gets its filter block rewritten
// (how = "rewritten"): libleveldb reads the result and every stored key is checked against it.
//
// Contract: nothing that would lose keys is written. A rebuilt filter answers 1 for every key it
// was built from (checked); keys given for a filter input must all be present in the input (else
// they are not its keys: Refused unless `force`); converting without keys where the bits cannot
// carry over is Refused with the key source needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

struct ConvertInput {
  std::string source;  // its path: messages, and the directory of a split manifest's files
  ByteSpan bytes;
  // The input's format; nullptr when `bytes` is a JSON document (a dump or a split manifest).
  const FormatCodec* format = nullptr;
};

struct ConvertOptions {
  const FormatCodec* to = nullptr;
  FilterParams params;
  const KeyList* keys = nullptr;  // the input filter's keys (--keys, --index)
  std::string key_source;         // where they came from, for messages
  bool keys_from_index = false;   // key_source is an Index.db: its keys are entries, not lines
  bool from_table = false;        // keys: the table's stored keys (user keys in a database table)
  bool no_filter = false;         // leveldb-table: remove the filter block
  bool legacy_v117 = false;       // leveldb-table: write a LevelDB 1.17 filter instead of 1.18's
  KeyKind key_kind = KeyKind::kAuto;  // leveldb-table input
  bool split = false;             // the output is a directory: one file per filter + manifest
  bool force = false;             // rebuild even though some keys are absent from the input
};

// The name of the manifest a split writes, and of each filter's file.
inline constexpr std::string_view kSplitManifestName = "manifest.json";
std::string SplitFilterFileName(std::size_t index, std::size_t count);

struct ConvertedFile {
  std::string name;  // relative to the output directory for a split; empty: the output itself
  ByteVector bytes;
};

struct Conversion {
  std::string how;  // "lossless", "rebuilt" or "rewritten"
  const FormatCodec* input_format = nullptr;  // the dump's format for a JSON input
  std::vector<ConvertedFile> files;
  std::optional<std::uint64_t> keys_used;     // rebuilt / rewritten: keys in the new filter
  std::vector<std::string> warnings;
};

// True when the bytes start (after white space) with '{': a dump or a split manifest.
bool LooksLikeJsonDocument(ByteSpan bytes);

Result<Conversion> Convert(const ConvertInput& input, const ConvertOptions& options);

}  // namespace bloomcodec
