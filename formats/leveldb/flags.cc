// The LevelDB family's own flags, declared once: the command line parses them into
// LevelDbOptions (bloomcodec/leveldb/options.h) and makes its help and docs/cli.md's tables from
// these declarations; only this family's code reads the options.
#include <string>

#include "bloomcodec/leveldb/options.h"
#include "formats/leveldb/family.h"
#include "leveldb/basho_bloom.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {
namespace {

bool HasKeyKind(const FamilyOptions& o) {
  return o.Get<LevelDbOptions>().key_kind != KeyKind::kAuto;
}
bool HasWriter(const FamilyOptions& o) {
  return o.Get<LevelDbOptions>().writer != FilterWriter::kAuto;
}
bool HasBashoBuild(const FamilyOptions& o) { return !o.Get<LevelDbOptions>().basho_build.empty(); }
bool HasNoFilter(const FamilyOptions& o) { return o.Get<LevelDbOptions>().no_filter; }
bool HasLegacy117(const FamilyOptions& o) { return o.Get<LevelDbOptions>().legacy_v117; }
bool HasFilterFor(const FamilyOptions& o) {
  return o.Get<LevelDbOptions>().filter_for != FilterWriter::kAuto;
}

Status ParseKeyKind(std::string_view value, FamilyOptions& o) {
  BLOOMCODEC_ASSIGN_OR_RETURN(o.Edit<LevelDbOptions>().key_kind, ParseKeyKindFlag(value));
  return Status();
}

Status ParseWriter(std::string_view value, FamilyOptions& o) {
  BLOOMCODEC_ASSIGN_OR_RETURN(o.Edit<LevelDbOptions>().writer, ParseFilterWriter(value));
  return Status();
}

Status ParseBashoBuild(std::string_view value, FamilyOptions& o) {
  if (FindBloom2Build(value) == nullptr) {
    return Status::InvalidArgument("--basho-build: expected one of " +
                                   std::string(kBloom2BuildIds) + ", found '" + std::string(value) +
                                   "'");
  }
  o.Edit<LevelDbOptions>().basho_build = std::string(value);
  return Status();
}

Status ParseNoFilter(std::string_view, FamilyOptions& o) {
  o.Edit<LevelDbOptions>().no_filter = true;
  return Status();
}

Status ParseLegacy117(std::string_view, FamilyOptions& o) {
  o.Edit<LevelDbOptions>().legacy_v117 = true;
  return Status();
}

// A writer's name, as --writer spells it; "auto" says nothing here.
Status ParseFilterFor(std::string_view value, FamilyOptions& o) {
  Result<FilterWriter> writer = ParseFilterWriter(value);
  if (!writer.ok() || *writer == FilterWriter::kAuto) {
    return Status::InvalidArgument("--filter-for: expected one of " +
                                   std::string(kFilterWriterNames) + ", found '" +
                                   std::string(value) + "'");
  }
  o.Edit<LevelDbOptions>().filter_for = *writer;
  return Status();
}

// Who wrote a filter matters where one policy name has had two hashes: LevelDB tables.
Status RefuseWriter(const FlagMisuse& m) {
  return Status::InvalidArgument("--writer applies to LevelDB tables (leveldb-table); " +
                                 std::string(m.path) + " is " + std::string(m.what));
}

Status RefuseBashoBuild(const FlagMisuse& m) {
  return Status::InvalidArgument("--basho-build applies to LevelDB tables (leveldb-table); " +
                                 std::string(m.path) + " is " + std::string(m.what));
}

Status RefuseFilterFor(const FlagMisuse&) {
  const std::string table(Codec(FormatId::kTable)->name());
  return Status::InvalidArgument("--filter-for rewrites a table's filter: it needs a " + table +
                                 " input and --to " + table);
}

Status RefuseRewriteFlag(const FlagMisuse&) {
  const std::string table(Codec(FormatId::kTable)->name());
  return Status::InvalidArgument(
      "--no-filter and --legacy-1.17 rewrite a table's filter: they need a " + table +
      " input and --to " + table);
}

// The rewrite flags against the sizing PARAMS, before any rule runs.
Status CheckConvert(const engine::ConvertCall& call) {
  const LevelDbOptions mine = call.options.family.Get<LevelDbOptions>();
  if (mine.no_filter && call.options.params.bits_per_key) {
    return Status::InvalidArgument(
        "--no-filter removes the filter; --bits-per-key adds one: give one");
  }
  if (mine.legacy_v117 && !call.options.params.bits_per_key) {
    return Status::InvalidArgument("--legacy-1.17 needs --bits-per-key N");
  }
  if (mine.filter_for != FilterWriter::kAuto) {
    if (mine.legacy_v117) {
      return Status::InvalidArgument(
          "--legacy-1.17 and --filter-for both say which filter to write: give one");
    }
    if (!call.options.params.bits_per_key) {
      return Status::InvalidArgument("--filter-for needs --bits-per-key N");
    }
  }
  return Status();
}

}  // namespace

engine::OwnFlags Flags() {
  static const FormatCodec* const tables[] = {Codec(FormatId::kTable)};
  using enum Subcommand;
  static const FlagDecl flags[] = {
      {.name = "--key-kind",
       .value = "user|plain",
       .help = "user: a table of a LevelDB database (internal keys; probes are user keys, looked "
               "up as DB::Get looks them up at the newest sequence); plain: a table a "
               "TableBuilder wrote (probes are compared and hashed as stored). Left out, the "
               "table decides where that is certain; where it cannot and the work needs it, "
               "that is a usage error. verify: single tables (a directory's tables say it).",
       .subcommands = {kProbe, kVerify, kConvert},
       .applies_to = "LevelDB tables",
       .formats = tables,
       .parse = ParseKeyKind,
       .is_set = HasKeyKind},
      {.name = "--writer",
       .value = "W",
       .help = "who wrote the table's filter, so which database's reader answers: leveldb (also "
               "leveldb-1.18+: LevelDB 1.18 and later, leveldb.BuiltinBloomFilter2), "
               "leveldb-1.17 (LevelDB <= 1.17 on x86: leveldb.BuiltinBloomFilter, tail bytes "
               "signed) or goleveldb (leveldb.BuiltinBloomFilter, tail bytes unsigned). Left "
               "out, the table's own keys decide. A writer whose policy name is not the table "
               "filter's, a file that is no LevelDB table and (verify) a directory are usage "
               "errors. convert: a rewrite keeps a filter that writer's database reads "
               "(goleveldb: also for a table that had none).",
       .subcommands = {kProbe, kVerify, kConvert},
       .applies_to = "LevelDB tables",
       .formats = tables,
       .parse = ParseWriter,
       .is_set = HasWriter,
       .refuse = RefuseWriter},
      {.name = "--basho-build",
       .value = "B",
       .help = "the build of Basho's LevelDB (Riak) that wrote the table, whose hashes its bloom2 "
               "filters are read with (they depend on the platform): x86-64, arm64-linux (also "
               "Linux ppc64 and s390x: 64-bit, unsigned char), arm64-macos (64-bit, signed "
               "char), i386 or armv7. Left out: x86-64's; verify then tries the others when "
               "x86-64's deny stored keys and names the build in a warning. Tables without "
               "bloom2 are read as ever.",
       .subcommands = {kProbe, kVerify},
       .applies_to = "LevelDB tables",
       .formats = tables,
       .parse = ParseBashoBuild,
       .is_set = HasBashoBuild,
       .refuse = RefuseBashoBuild},
      {.name = "--no-filter",
       .help = "a rewrite of the table (--to leveldb-table) drops its filter block; not with "
               "--bits-per-key.",
       .subcommands = {kConvert},
       .applies_to = "LevelDB tables rewritten",
       .formats = tables,
       .rewrite_only = true,
       .parse = ParseNoFilter,
       .is_set = HasNoFilter,
       .refuse = RefuseRewriteFlag},
      {.name = "--legacy-1.17",
       .help = "a rewrite of the table (--to leveldb-table) writes LevelDB 1.17's filter "
               "(leveldb.BuiltinBloomFilter, the x86 hash) instead of 1.18's; needs "
               "--bits-per-key.",
       .subcommands = {kConvert},
       .applies_to = "LevelDB tables rewritten",
       .formats = tables,
       .rewrite_only = true,
       .parse = ParseLegacy117,
       .is_set = HasLegacy117,
       .refuse = RefuseRewriteFlag},
      {.name = "--filter-for",
       .value = "W",
       .help = "a rewrite of the table (--to leveldb-table) writes the filter W's database reads, "
               "whoever wrote the input: leveldb (LevelDB 1.18 and later: "
               "leveldb.BuiltinBloomFilter2), leveldb-1.17 (as --legacy-1.17) or goleveldb "
               "(leveldb.BuiltinBloomFilter, goleveldb's sizing). Each of them ignores the "
               "others' filters, so this moves a database's tables from one to another (say "
               "goleveldb's to LevelDB). Left out, the input's writer's filter (LevelDB 1.17's "
               "becomes 1.18's). Needs --bits-per-key.",
       .subcommands = {kConvert},
       .applies_to = "LevelDB tables rewritten",
       .formats = tables,
       .rewrite_only = true,
       .parse = ParseFilterFor,
       .is_set = HasFilterFor,
       .refuse = RefuseFilterFor},
  };
  return {.declared = flags, .check_convert = CheckConvert};
}

}  // namespace bloomcodec::leveldb
