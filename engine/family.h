// How a format family plugs into the engines. Internal to the library: not installed.
//
// A family (Cassandra, LevelDB, RocksDB, ...) lives in its own folder and declares there, once,
// everything the engines need to know about its formats:
//
//   // formats/leveldb/family.cc
//   const engine::Family& leveldb::TheFamily() {
//     static const engine::ConversionRule rules[] = {
//         {&kTable, &kFilterBlock, ConversionKind::kLossless, engine::When::kBitsCarryOver,
//          ExtractFilterBlock, "the table's filter block, as it stands"},
//     };
//     static const engine::Family family{.name = "leveldb", .formats = Formats(), ...};
//     return family;
//   }
//
// and engine/registry.cc lists the families: that list is the only place that knows them all.
// The convert and verify engines never compare format names: they look up rules and hooks here.
// Adding a format, or a flag of the family's own, touches its family's folder only (and the
// generated tables of docs/cli.md); adding a family, its folder and the list.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/convert.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/flags.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::engine {

// ---- convert ----------------------------------------------------------------------------------

// When the engine tries a rule.
enum class When {
  kBitsCarryOver,  // no keys and no sizing parameters: the bits are re-encoded as they are
  kSplit,          // the output is a directory: one file per filter plus a manifest
  kTableRewrite,   // a table to itself: its filter rebuilt from its own keys (or removed), as the
                   // family's options and --bits-per-key say; everything else carried over. Tried
                   // for every conversion of a format to itself: the rule returns nullopt when
                   // nothing asks for a rewrite
};

// What a rule is given: the decoded input (a dump already undumped) and the caller's options.
struct ConvertCall {
  const FormatCodec* from = nullptr;
  ByteSpan bytes;
  const ConvertInput& input;
  const ConvertOptions& options;
};

// A rule's conversion, or nullopt when the input is not one it applies to after all (say a
// RocksDB filter whose trailer is another kind than `to`): the engine then goes on to the next
// rule, and to a rebuild from keys when none applies.
using ConvertFn = Result<std::optional<Conversion>> (*)(const ConvertCall& call);

// A conversion that made one output file (the input's format filled in by the engine).
inline Conversion OneFile(ConversionKind kind, ByteVector bytes) {
  Conversion c;
  c.kind = kind;
  c.files.push_back({"", std::move(bytes)});
  return c;
}

struct ConversionRule {
  const FormatCodec* from = nullptr;
  const FormatCodec* to = nullptr;
  ConversionKind kind = ConversionKind::kLossless;
  When when = When::kBitsCarryOver;
  ConvertFn run = nullptr;
  std::string_view note;  // one line for `convert --help`'s list
};

// ---- verify -----------------------------------------------------------------------------------

// One bloom filter inside a file, for the generic verifier's fill judgement (engine/verify_codec):
// its fill, the most keys its parameters allow, where its bits start (the finding's offset).
struct FilterFill {
  FillStatistics stats;
  std::optional<double> allowed;
  std::uint64_t offset = 0;
  bool probed = true;  // the filter Probe asks the keys of (a filter block: filter 0's)
};

// What verify plans for one file of a family's format.
struct FilePlan {
  const std::string& path;
  const FormatCodec* format;
  const VerifyOptions& options;
  const KeyStream* keys;     // options.keys when the key source is a key list, else null
  const std::string& group;  // the file's directory: what a read consults with it
};

struct FamilyVerify {
  // Recognises a directory as one of the family's (a database, a data directory) and adds a task
  // per file; returns false when the directory is not the family's. Asked in `directory_rank`
  // order (the most specific first: a RocksDB database also looks like a LevelDB one).
  Result<bool> (*plan_directory)(const std::string& dir, const VerifyOptions& options,
                                 std::vector<VerifyTask>& tasks) = nullptr;
  int directory_rank = 0;
  // What such a directory is, for the message when no family recognises one (empty: not said).
  std::string_view directory_description;
  // Plans a single file of one of the family's formats; returns false to leave it to the
  // generic verifier (the codec's Probe plus `filters_of`).
  Result<bool> (*plan_file)(const FilePlan& plan, std::vector<VerifyTask>& tasks) = nullptr;
  // The filters of a file the generic verifier checks. A layout the strict parser refuses is a
  // finding added to `report` (the lenient reader Probe uses may answer "may match" silently).
  std::vector<FilterFill> (*filters_of)(const FormatCodec* format, ByteSpan file,
                                        std::string_view source, FileReport& report) = nullptr;
  // The format of a file whose bytes claim none but whose name says what it is meant to be (a
  // truncated NNNNNN.ldb), so that damage is a finding at its offset; nullptr when none.
  const FormatCodec* (*format_by_name_only)(std::string_view path) = nullptr;
  // inspect of a directory: what the family's database holds (levels, live tables), or nullopt
  // when the directory is not one of the family's. Asked in `directory_rank` order.
  Result<std::optional<Document>> (*inspect_directory)(const std::string& dir) = nullptr;
};

// ---- keys -------------------------------------------------------------------------------------

struct FamilyKeys {
  // Formats whose files hold their own keys (tables): --from-table reads them.
  std::span<const FormatCodec* const> tables;
  // The stored keys of such a file, each once, in file order (`options`: the family's own, e.g.
  // the key kind of a LevelDB table).
  Result<KeyList> (*table_keys)(const FormatCodec* format, ByteSpan bytes, std::string_view source,
                                const FamilyOptions& options) = nullptr;
  // The keys of an index file beside the family's filters (Cassandra's Index.db), read for the
  // filter format they are checked against (nullptr when unknown), as a stream.
  Result<std::unique_ptr<KeyStream>> (*index_keys)(const std::string& path,
                                                   const FormatCodec* filter_format) = nullptr;
  // What a refusal to rebuild without keys adds about index_keys, e.g. " (or --index ...)".
  std::string_view index_hint;
};

// ---- flags ------------------------------------------------------------------------------------

// The family's own flags (bloomcodec/flags.h): the command line parses them into the family's
// options (bloomcodec/<family>/options.h), which reach the family's code through the shared
// option structs as one FamilyOptions value.
struct OwnFlags {
  std::span<const FlagDecl> declared;  // in the order of help and docs
  // convert: checks the family's options against the rest of the call (say --legacy-1.17
  // without --bits-per-key) before any rule runs. Asked of the input's family.
  Status (*check_convert)(const ConvertCall& call) = nullptr;
};

struct Family {
  std::string_view name;
  std::span<const FormatCodec* const> formats;  // in the order of the command-line contract
  std::span<const ConversionRule> conversions;
  FamilyVerify verify;
  FamilyKeys keys;
  OwnFlags flags;
};

// Every family, in the order of the command-line contract (engine/registry.cc).
std::span<const Family* const> Families();
// The family that declares `format`; nullptr for a format no family declares.
const Family* FamilyOf(const FormatCodec* format);
// Every conversion rule of every family, in family order.
std::vector<const ConversionRule*> AllConversionRules();

}  // namespace bloomcodec::engine
