// The command line's own flags and the lists each subcommand parses (see command_flags.h).
#include "command_flags.h"

#include <algorithm>

namespace bloomcodec::tool {

std::span<const FlagDecl> CommandFlags() {
  using enum Subcommand;
  static constexpr FlagDecl flags[] = {
      {"--format",
       "F",
       "the format (see Formats); left out, the input's name or bytes tell it where they can "
       "(build, hash and size need it)",
       {kBuild, kProbe, kHash, kSize, kInspect, kVerify, kConvert, kDump}},
      {"--to",
       "F",
       "the format to convert to (repair, LSM databases: the filter format every table is "
       "rebuilt into, one the database's readers read)",
       {kConvert, kRepair}},
      {"-o",
       "OUT",
       "the file to write ('-': standard output; a name ending in .gz is written "
       "gzip-compressed); convert: a directory (DIR/, or one that exists) splits a filter block",
       {kBuild, kConvert}},
      {"--output", "OUT", "the same as -o", {kBuild, kConvert}},
      {"--keys",
       "K",
       "a key file, one key per line ('-': standard input; a name ending in .gz is read "
       "through gzip)",
       {kBuild, kProbe, kHash, kVerify, kConvert}},
      {"--key-format",
       "text|hex|base64",
       "how the lines of --keys spell a key (default text)",
       {kBuild, kProbe, kHash, kVerify, kConvert}},
      {"--index", "INDEX_DB", "the keys of a Cassandra Index.db", {kVerify, kConvert}},
      {"--from-table",
       "",
       "the keys a table stores (leveldb-table, rocksdb-sst)",
       {kVerify, kConvert}},
      {"--fp-chance",
       "P",
       "PARAMS, Cassandra: the false-positive chance, as Java's Double.parseDouble reads it",
       {kBuild, kSize, kConvert, kRepair}},
      {"--buckets-per-element",
       "N",
       "PARAMS, Cassandra before 1.2: buckets per element (a signed 32-bit integer)",
       {kBuild, kSize, kConvert}},
      {"--bits-per-key",
       "B",
       "PARAMS, LevelDB (a whole number) and RocksDB (a decimal): bits per key",
       {kBuild, kSize, kConvert, kRepair}},
      {"--expected-keys",
       "N",
       "PARAMS: size for N keys instead of the number given (size: the key count); a signed "
       "64-bit integer",
       {kBuild, kSize, kConvert}},
      {"--force",
       "",
       "rebuild although the keys do not look like the input's, with a warning",
       {kConvert}},
      {"--dry-run", "", "repair: print the plan and change nothing", {kRepair}},
      {"--backup",
       "DIR",
       "repair: keep the replaced files as hard links under DIR (on the data's file system) "
       "instead of the family's default place",
       {kRepair}},
      {"--no-backup", "", "repair: keep no copy of the replaced files", {kRepair}},
      {"--prometheus",
       "FILE",
       "verify: also write the run's figures per group to FILE in node_exporter's textfile "
       "format (atomically: a temporary file in FILE's directory, renamed)",
       {kVerify}},
      {"--json",
       "",
       "one JSON document on standard output instead of text",
       {kBuild, kProbe, kHash, kSize, kInspect, kVerify, kConvert, kDump, kRepair}},
  };
  return flags;
}

std::vector<FlagSpec> SubcommandFlags(Subcommand subcommand) {
  std::vector<FlagSpec> specs;
  auto add = [&](const FlagDecl& d) {
    const bool known = std::any_of(specs.begin(), specs.end(),
                                   [&](const FlagSpec& s) { return s.name == d.name; });
    if (!known) specs.push_back({d.name, !d.value.empty()});
  };
  for (const FlagDecl& d : CommandFlags()) {
    if (d.subcommands.has(subcommand)) add(d);
  }
  for (const FamilyFlag& f : FamilyFlags(subcommand)) add(*f.decl);
  return specs;
}

Result<FamilyOptions> ReadFamilyOptions(const Args& args, Subcommand subcommand) {
  const std::vector<FamilyFlag> declared = FamilyFlags(subcommand);
  FamilyOptions options;
  for (const auto& flag : args.flags()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (CI's sanitizer
    // build is clang).
    const auto& name = flag.first;
    const bool family = std::any_of(declared.begin(), declared.end(),
                                    [&](const FamilyFlag& f) { return f.decl->name == name; });
    if (family) BLOOMCODEC_RETURN_IF_ERROR(ParseFamilyFlag(subcommand, name, flag.second, options));
  }
  return options;
}

}  // namespace bloomcodec::tool
