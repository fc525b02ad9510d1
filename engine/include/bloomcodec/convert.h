// convert: re-encode a filter losslessly where its bits carry over, rebuild it from its keys
// where they cannot, or rewrite the filter block of a LevelDB table.
//
//   bloomcodec::ConvertInput in{path, file.bytes(), bloomcodec::FindFormat("cassandra-legacy")};
//   bloomcodec::ConvertOptions options;
//   options.to = bloomcodec::FindFormat("cassandra-1.0");
//   options.params.buckets_per_element = 15;
//   auto keys = bloomcodec::OpenKeyFile("keys.txt", bloomcodec::KeyFormat::kText);
//   options.keys = keys->get();                  // the legacy filter's keys
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::Conversion c, bloomcodec::Convert(in, options));
//   // c.kind == ConversionKind::kRebuilt, c.files[0].bytes == what build writes for the keys
//
// What carries over losslessly (kLossless): a dump document back to its format; any format to
// itself; and the rules each format family registers (engine/family.h; `Conversions()` lists
// them, and so does `bloomcodec convert --help`), e.g. cassandra-1.0 <-> cassandra-1.0-row or a
// filter block split into its raw filters (`split`: one file per filter plus filters.json).
// Everything else needs the filter's keys (kRebuilt): a different hash (legacy Cassandra -> 1.0,
// LevelDB 1.17 -> 1.18) or a different size. A table with --bits-per-key / --no-filter gets its
// filter rewritten (kRewritten): the result is read back and every stored key checked against it.
//
// Contract: nothing that would lose keys is written. A rebuilt filter answers 1 for every key it
// was built from (checked); keys given for a filter input must all be present in the input (else
// they are not its keys: Refused unless `force`); converting without keys where the bits cannot
// carry over is Refused with the key source needed.
//
// Keys are streamed: a rebuild reads its key source three times (the input's answers and the
// count, the build, the check of the result), a chunk at a time, and holds only the filters, for
// every format whose filter is sized from the key count alone (FormatCodec::StartBuild). Nothing
// is built before the first pass has read every key without error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

// How a conversion made its output (the command line's "how": "lossless", "rebuilt", "rewritten").
enum class ConversionKind {
  kLossless,   // the input's bits carried over as they are
  kRebuilt,    // a new filter built from the input's keys
  kRewritten,  // a table's filter rebuilt from its own keys, the rest of the table carried over
};
std::string_view ConversionKindName(ConversionKind kind);

struct ConvertInput {
  std::string source;  // its path: messages, and the directory of a split's filter files
  ByteSpan bytes;
  // The input's format; nullptr when `bytes` is a JSON document (a dump or a split's list).
  const FormatCodec* format = nullptr;
};

struct ConvertOptions {
  const FormatCodec* to = nullptr;
  FilterParams params;
  // The input filter's keys (--keys, --index), read as a stream; its source() and key_unit()
  // name them in messages.
  const KeyStream* keys = nullptr;
  bool from_table = false;  // keys: the table's stored keys (user keys in a database table)
  // The families' own options (bloomcodec/<family>/options.h), read by the input's family: a
  // LevelDB table's key kind and writer, and what a table rewrite writes (no filter, LevelDB
  // 1.17's). One that does not apply to the input (or, for a rewrite's, to --to) is refused as
  // its flag's declaration says (bloomcodec/flags.h).
  FamilyOptions family;
  bool split = false;  // the output is a directory: one file per filter + kSplitListName
  bool force = false;  // rebuild even though some keys are absent from the input
};

// The name of the list of filters a split writes (a JSON document that converts back to the
// filter block; before, "manifest.json", which joins the same: "manifest" is a database's), and
// of each filter's file.
inline constexpr std::string_view kSplitListName = "filters.json";
std::string SplitFilterFileName(std::size_t index, std::size_t count);

struct ConvertedFile {
  std::string name;  // relative to the output directory for a split; empty: the output itself
  ByteVector bytes;
};

struct Conversion {
  ConversionKind kind = ConversionKind::kLossless;
  const FormatCodec* input_format = nullptr;  // the dump's format for a JSON input
  std::vector<ConvertedFile> files;
  std::optional<std::uint64_t> keys_used;  // rebuilt / rewritten: keys in the new filter
  std::vector<std::string> warnings;
};

// Where a converted file goes: `output` itself, or output/name for a split.
std::string ConvertedFilePath(std::string_view output, const ConvertedFile& file);
// The report of a conversion of `input` written to `output`, the document `convert --json` prints
// (the command line, the Python module): input and its format, output, format, how, bytes (and
// for a split each file written), the keys used and where they came from, the warnings.
Document ConversionReport(const Conversion& conversion, const ConvertOptions& options,
                          std::string_view input, std::string_view output);

// True when the bytes start (after white space) with '{': a dump or a split's list.
bool LooksLikeJsonDocument(ByteSpan bytes);

Result<Conversion> Convert(const ConvertInput& input, const ConvertOptions& options);

// One conversion the format families declare (beyond a dump back to its format, a format to
// itself and rebuilds from keys, which every format has).
struct ConversionInfo {
  const FormatCodec* from = nullptr;
  const FormatCodec* to = nullptr;
  ConversionKind kind = ConversionKind::kLossless;
  std::string_view note;  // when it applies, in a few words
};
std::vector<ConversionInfo> Conversions();

// The keys of an index file that lists a filter's keys (a Cassandra Index.db), decoded as its
// name's version says, or else as the layout of `filter_format` (nullptr: unknown) implies; read
// a window at a time, its key_unit() "entry". InvalidArgument when no family reads such files.
Result<std::unique_ptr<KeyStream>> OpenIndexKeys(const std::string& path,
                                                 const FormatCodec* filter_format);

}  // namespace bloomcodec
