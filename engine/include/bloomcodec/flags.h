// The flags of the command line as data. The flags every format shares (--format, --keys, the
// sizing PARAMS, ...) are the command line's own; the flags of one format family (--writer of
// LevelDB tables, --partitioner of old Cassandra sstables, ...) are declared by that family, in
// its folder, and only that family reads what they say. Help, docs/cli.md's flag tables and the
// argument parser are made from these declarations.
//
//   // what `bloomcodec probe --writer goleveldb t.ldb ...` does with its family flags:
//   bloomcodec::ProbeOptions options;
//   BLOOMCODEC_RETURN_IF_ERROR(bloomcodec::ParseFamilyFlag(bloomcodec::Subcommand::kProbe,
//                                                          "--writer", "goleveldb", options.family));
//   BLOOMCODEC_RETURN_IF_ERROR(bloomcodec::CheckFamilyFlags(
//       bloomcodec::Subcommand::kProbe, options.family, {.path = "t.ldb", .format = format}));
//
// Contract: a family flag's value is parsed and checked by its family when the command line is
// read (a bad value is an InvalidArgument naming the flag); a flag given for a file it does not
// apply to is refused or ignored as its declaration says (docs/cli.md says which). A name may be
// declared by several families (LevelDB and RocksDB tables both take --key-kind): each parses the
// value into its own options, and the flag applies where any of them applies.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/family_options.h"
#include "bloomcodec/format.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

enum class Subcommand : std::uint8_t {
  kBuild,
  kProbe,
  kHash,
  kSize,
  kInspect,
  kVerify,
  kConvert,
  kDump,
  kRepair,
};
// "build", "probe", ... as the command line spells them.
std::string_view SubcommandName(Subcommand subcommand);

// A set of subcommands: where a flag may be given.
class Subcommands {
 public:
  constexpr Subcommands() = default;
  constexpr Subcommands(std::initializer_list<Subcommand> list) {
    for (Subcommand s : list) bits_ |= Bit(s);
  }
  constexpr bool has(Subcommand s) const { return (bits_ & Bit(s)) != 0; }

 private:
  static constexpr std::uint16_t Bit(Subcommand s) {
    return static_cast<std::uint16_t>(1u << static_cast<unsigned>(s));
  }
  std::uint16_t bits_ = 0;
};

// A family flag given where it does not apply: a file of another format, or a directory.
struct FlagMisuse {
  std::string_view path = {};  // the file or directory as given
  // What the path is, for the message: a format name, "a JSON document" or "a directory".
  std::string_view what = {};
  bool directory = false;
};

// How a family flag treats the PATHs of verify that are directories.
enum class DirectoryUse {
  kSingleFilesOnly,  // refused with the one message that names --format and every such flag
  kOwnRefusal,       // refused with the declaration's own `refuse` message
  kApplies,          // the family reads it for the directories it recognises
};

// One flag. The command line declares its own with the first four fields; a family fills in
// the rest for its flags.
struct FlagDecl {
  std::string_view name = {};   // "--writer"
  std::string_view value = {};  // its value as help spells it ("W", "user|plain"); empty: none
  std::string_view help = {};   // what it does, in sentences (help, docs/cli.md)
  Subcommands subcommands = {};

  // In words, where it applies, e.g. "LevelDB tables" (help and docs).
  std::string_view applies_to = {};
  // The formats it applies to (convert: the input's format).
  std::span<const FormatCodec* const> formats = {};
  DirectoryUse directories = DirectoryUse::kSingleFilesOnly;
  // convert: only when --to is the input's own format (a rewrite of a table's filter).
  bool rewrite_only = false;
  // Reads the value given ("" for a flag that takes none) into the family's options; a bad
  // value is an InvalidArgument naming the flag.
  Status (*parse)(std::string_view value, FamilyOptions& options) = nullptr;
  // Whether the options say what this flag says (it was given, or a library caller set it).
  bool (*is_set)(const FamilyOptions& options) = nullptr;
  // The usage error for a use where it does not apply; nullptr, or OK, when such a use is
  // ignored (as the contract says of --key-kind for a Cassandra file). A directory is asked
  // only of kOwnRefusal flags.
  Status (*refuse)(const FlagMisuse& misuse) = nullptr;
};

// One spelling of a flag whose value names one of a few choices.
template <class T>
struct FlagChoice {
  std::string_view name;
  T value;
};

// The choice `value` names, or the usage error every such flag gives:
// "--key-kind: expected user or plain, found 'x'".
template <class T>
Result<T> ParseFlagChoice(std::string_view flag, std::string_view value,
                          std::span<const FlagChoice<T>> choices) {
  std::string expected;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].name == value) return choices[i].value;
    if (i > 0) expected += i + 1 == choices.size() ? " or " : ", ";
    expected += choices[i].name;
  }
  return Status::InvalidArgument(std::string(flag) + ": expected " + expected + ", found '" +
                                 std::string(value) + "'");
}

// --key-kind as LevelDB and RocksDB tables both read it: user or plain.
Result<KeyKind> ParseKeyKindFlag(std::string_view value);

// A family flag and the family that declares it.
struct FamilyFlag {
  std::string_view family;  // "cassandra", "leveldb", "rocksdb"
  const FlagDecl* decl = nullptr;
};
// Every family's flags, in family order and each family's order of declaration.
std::vector<FamilyFlag> FamilyFlags();
// Those declared for `subcommand`.
std::vector<FamilyFlag> FamilyFlags(Subcommand subcommand);

// Parses the value of the family flag `name` into `options`, by every family that declares it
// for `subcommand`. InvalidArgument for a bad value, or for a name no family declares there.
Status ParseFamilyFlag(Subcommand subcommand, std::string_view name, std::string_view value,
                       FamilyOptions& options);

// What the family flags of one run are checked against: a file and its format.
struct FlagTarget {
  std::string_view path = {};
  const FormatCodec* format = nullptr;
  // How a refusal names the file's kind; empty: the format's name.
  std::string_view what = {};
  const FormatCodec* to = nullptr;  // convert: the output's format
};
// The first refusal of a family flag set in `options` that does not apply to `target` (in the
// order of FamilyFlags), or OK.
Status CheckFamilyFlags(Subcommand subcommand, const FamilyOptions& options,
                        const FlagTarget& target);

}  // namespace bloomcodec
