// The RocksDB family's own flags, declared once: the command line parses them into
// RocksDbOptions (bloomcodec/rocksdb/options.h) and makes its help and docs/cli.md's tables from
// these declarations; only this family's code reads the options.
#include <string>

#include "bloomcodec/rocksdb/options.h"
#include "formats/rocksdb/family.h"
#include "rocksdb/sst/prefix_extractor.h"

namespace bloomcodec::rocksdb {
namespace {

bool HasKeyKind(const FamilyOptions& o) {
  return o.Get<RocksDbOptions>().key_kind != KeyKind::kAuto;
}
bool HasPrefixExtractor(const FamilyOptions& o) {
  return !o.Get<RocksDbOptions>().prefix_extractor.empty();
}
bool HasNoFilter(const FamilyOptions& o) { return o.Get<RocksDbOptions>().no_filter; }

// Both spellings are read (LevelDB tables take the same flag); plain is refused where an SST is
// probed, with the reason.
Status ParseKeyKind(std::string_view value, FamilyOptions& o) {
  BLOOMCODEC_ASSIGN_OR_RETURN(o.Edit<RocksDbOptions>().key_kind, ParseKeyKindFlag(value));
  return Status();
}

Status ParsePrefixExtractor(std::string_view value, FamilyOptions& o) {
  BLOOMCODEC_RETURN_IF_ERROR(PrefixExtractor::FromSpec(value).status());
  o.Edit<RocksDbOptions>().prefix_extractor = std::string(value);
  return Status();
}

Status ParseNoFilter(std::string_view, FamilyOptions& o) {
  o.Edit<RocksDbOptions>().no_filter = true;
  return Status();
}

// A directory's tables are read with the extractors they record; a file of another format has
// no prefixes to check, and is left alone.
Status RefusePrefixExtractor(const FlagMisuse& m) {
  if (!m.directory) return Status();
  return Status::InvalidArgument("--prefix-extractor applies to SST files given one by one; " +
                                 std::string(m.path) +
                                 " is a directory (its tables' recorded extractors are used)");
}

Status RefuseNoFilter(const FlagMisuse&) {
  const std::string sst(Codec(FormatId::kSst)->name());
  return Status::InvalidArgument("--no-filter rewrites a table's filter: it needs a " + sst +
                                 " input and --to " + sst);
}

Status CheckConvert(const engine::ConvertCall& call) {
  if (call.options.family.Get<RocksDbOptions>().no_filter && call.options.params.bits_per_key) {
    return Status::InvalidArgument(
        "--no-filter removes the filter; --bits-per-key adds one: give one");
  }
  return Status();
}

}  // namespace

engine::OwnFlags Flags() {
  static const FormatCodec* const ssts[] = {Codec(FormatId::kSst)};
  using enum Subcommand;
  static const FlagDecl flags[] = {
      {.name = "--key-kind",
       .value = "user|plain",
       .help = "an SST holds internal keys and its filter hashes user keys: probes are user keys "
               "(user); plain is a usage error.",
       .subcommands = {kProbe, kVerify, kConvert},
       .applies_to = "RocksDB SSTs",
       .formats = ssts,
       .parse = ParseKeyKind,
       .is_set = HasKeyKind},
      {.name = "--prefix-extractor",
       .value = "fixed:N|capped:N|noop",
       .help = "the prefix extractor to check an SST's prefixes with, in place of the one the "
               "table records (which is used when it is built in): fixed:N, capped:N (N >= 1) or "
               "noop. For SSTs given one by one; a directory is a usage error.",
       .subcommands = {kVerify},
       .applies_to = "RocksDB SSTs",
       .formats = ssts,
       .directories = DirectoryUse::kOwnRefusal,
       .parse = ParsePrefixExtractor,
       .is_set = HasPrefixExtractor,
       .refuse = RefusePrefixExtractor},
      {.name = "--no-filter",
       .help = "a rewrite of the SST (--to rocksdb-sst) drops its full filter; not with "
               "--bits-per-key.",
       .subcommands = {kConvert},
       .applies_to = "RocksDB SSTs rewritten",
       .formats = ssts,
       .rewrite_only = true,
       .parse = ParseNoFilter,
       .is_set = HasNoFilter,
       .refuse = RefuseNoFilter},
  };
  return {.declared = flags, .check_convert = CheckConvert};
}

}  // namespace bloomcodec::rocksdb
