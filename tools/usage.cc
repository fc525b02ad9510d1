#include "usage.h"

#include <algorithm>

#include "bloomcodec/convert.h"
#include "bloomcodec/flags.h"

namespace bloomcodec::tool {

namespace {

struct SubcommandText {
  Subcommand id;
  std::string_view name;
  // "{families}" stands for the family flags the subcommand takes, as their families declare them.
  std::string_view synopsis;
  std::string_view details;
};

constexpr SubcommandText kSubcommands[] = {
    {Subcommand::kBuild, "build",
     "build --format F --keys K [--key-format text|hex|base64] PARAMS [--expected-keys N] -o OUT"
     "{families} [--json]",
     "Writes the filter the original writes for these keys and parameters, byte for byte.\n"
     "PARAMS: --fp-chance P | --buckets-per-element N | --bits-per-key B (see below which\n"
     "format takes which). --expected-keys N sizes the filter for N keys instead of the number\n"
     "of keys given. OUT is written to a temporary name and renamed; OUT ending in .gz is\n"
     "gzip-compressed; '-o -' writes the filter to standard output. OUT may not be the key file.\n"
     "--json reports what was written as one JSON document (not with '-o -').\n"},
    {Subcommand::kProbe, "probe",
     "probe FILE [--format F] --keys K [--key-format text|hex|base64]{families} [--json]",
     "Prints, for each key in input order, 1 (may contain) or 0 (definitely not): the\n"
     "original's answer, false positives included. --format may be left out when FILE says what\n"
     "it is (a Cassandra file name with its version, a LevelDB or RocksDB table footer). For a\n"
     "RocksDB SST, the answer of its full (or partitioned) filter for the user key.\n"
     "--json prints one JSON document instead (see docs/cli.md).\n"},
    {Subcommand::kHash, "hash",
     "hash --format F --keys K [--key-format text|hex|base64]{families} [--json]",
     "Prints the format's hash of each key, one tab-separated line per key, in input order.\n"
     "--json prints {\"hashes\": [[values of key 1], ...]} with exact integers instead.\n"},
    {Subcommand::kSize, "size",
     "size --format F --expected-keys N (--fp-chance P | --buckets-per-element B | --bits-per-key "
     "B){families} [--json]",
     "Prints the filter the original would allocate for N keys: hash count, buckets per element\n"
     "or bits per key, bits, words, file size, and the warnings the original logs. Refuses\n"
     "(exit 2) exactly where the original refuses.\n"},
    {Subcommand::kInspect, "inspect", "inspect FILE... [--format F]{families} [--json]",
     "Prints what each FILE holds: format, header fields, sizes, bits set, fill ratio, the\n"
     "estimated number of keys (Swamidass-Baldi) and false-positive rate, and what the\n"
     "parameters promised (Cassandra: the buckets per element K implies and the key count the\n"
     "filter was sized for; LevelDB: the bits-per-key range of k; RocksDB: the trailer's kind\n"
     "and geometry). Tables: footer, metaindex, the filter block's layout, which data blocks\n"
     "each filter serves, per-filter statistics; RocksDB SSTs also the properties block.\n"
     "A FILE that is a LevelDB or RocksDB database directory: what CURRENT and its MANIFEST\n"
     "say, the live tables per column family and level with sizes and key ranges.\n"
     "--json prints {\"files\": [one document per FILE]} (see docs/cli.md).\n"},
    {Subcommand::kVerify, "verify",
     "verify PATH... [--keys K [--key-format F] | --index INDEX_DB | --from-table] [--format F]"
     "{families} [--json] [--prometheus FILE]",
     "Checks each PATH: a filter file, a LevelDB table or RocksDB SST, a Cassandra data\n"
     "directory (every SSTable's Filter.db against its Index.db, keyspace subfolders included;\n"
     "0.7 - 5.0), a LevelDB or RocksDB database directory (the live tables of its MANIFEST at\n"
     "their levels, each against the keys of its own data blocks; missing and obsolete tables\n"
     "reported) or a folder of tables under any names. Reports the\n"
     "structure (with byte offsets; block checksums of tables), every key the filter answers\n"
     "'definitely absent' (false negatives), and the fill against what the parameters allow;\n"
     "then a summary with the false-positive rate a read sees across the tables of each\n"
     "column family or database, 1 - prod(1 - p_i) (a database with a MANIFEST: every level-0\n"
     "table and one table per level above). Keys of a single file: --keys K, --index\n"
     "INDEX_DB (a Cassandra Index.db), --from-table (a table's own keys; the default for\n"
     "tables). Exit 1 when a file has an error finding (a damaged file inside a directory\n"
     "included); warnings alone exit 0. --json prints one JSON document (see docs/cli.md).\n"
     "--prometheus FILE also writes files by status and, per group, tables, errors,\n"
     "warnings, keys checked and fp rate for node_exporter's textfile collector.\n"
     "RocksDB prefix filters: the prefixes of RocksDB's built-in extractors that a table names\n"
     "are checked too.\n"},
    {Subcommand::kConvert, "convert",
     "convert IN -o OUT --to F [--format F] [PARAMS] [--keys K [--key-format F] | --index "
     "INDEX_DB | --from-table]{families} [--force] [--json]",
     "Lossless where the bits carry over: a dump (or a split's filters.json) back to its\n"
     "format, a format to itself, and the conversions listed below. Otherwise a rebuild from\n"
     "the filter's keys with PARAMS (--keys, --index Index.db, --from-table); keys the input\n"
     "answers 0 for are refused (--force overrides). A table to its own format with\n"
     "--bits-per-key, or a flag of its family that asks for it (below), rewrites its filter\n"
     "from its own keys (a goleveldb table keeps goleveldb's filter). '-o DIR/'\n"
     "splits a filter block (or a table's filter) into raw filters (DIR/filter-NNN +\n"
     "DIR/filters.json). Never writes over an input; OUT ending in .gz is gzipped.\n"},
    {Subcommand::kDump, "dump", "dump FILE [--format F]{families} --json",
     "Prints everything in FILE as one JSON document (header fields, bits as base64) that\n"
     "'convert DUMP --to F -o OUT' turns back into the same bytes.\n"},
    {Subcommand::kRepair, "repair",
     "repair PATH... [--fp-chance P | --bits-per-key N] [--to F] [--dry-run] [--backup DIR | "
     "--no-backup]{families} [--json]",
     "Rebuilds filters in place on a stopped database. Each PATH is a Cassandra or ScyllaDB\n"
     "data directory (every live sstable under it) or one sstable (any component), or a\n"
     "LevelDB, goleveldb, Mojang, RocksDB or Pebble database directory. Without parameters\n"
     "only the filters verify finds wrong are rebuilt, at the parameters the table records;\n"
     "with --fp-chance P (Cassandra) or --bits-per-key N (LSM databases) every filter, and\n"
     "--to F changes a RocksDB filter's kind. Cassandra: the new Filter.db is built from the\n"
     "sstable's own keys as its version's writer builds it, Statistics.db records P (set the\n"
     "table's bloom_filter_fp_chance to P too), every other component stays byte-identical;\n"
     "the old files are kept in <table>/snapshots/bloomcodec-repair-<time>/ (nodetool\n"
     "clearsnapshot removes it). LSM databases: each table is rewritten with its new filter\n"
     "under the database's LOCK and a new MANIFEST switched to atomically; the old files are\n"
     "kept in a dated folder beside the database. --backup DIR keeps them there instead,\n"
     "--no-backup not at all. A table damaged besides its filter is reported and left\n"
     "untouched (exit 1). Refused (exit 2): a live database (a process holding a file of the\n"
     "sstable, or the LOCK), and parameters the database's readers could not read.\n"
     "--dry-run prints the plan (table, why, old and new filter size and fp rate) and writes\n"
     "nothing. --json prints one JSON document (see docs/cli.md).\n"},
};

const SubcommandText* Find(Subcommand id) {
  for (const SubcommandText& s : kSubcommands) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

// "  NAME VALUE" of a flag as a synopsis or a list shows it.
std::string Spelled(const FlagDecl& d) {
  return std::string(d.name) + (d.value.empty() ? "" : " " + std::string(d.value));
}

// `text` in lines of at most kHelpWidth columns, each indented by `indent` spaces.
constexpr std::size_t kHelpWidth = 92;
std::string Wrapped(std::string_view text, std::size_t indent) {
  std::string out;
  std::string line(indent, ' ');
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (line.size() > indent && line.size() + 1 + word.size() > kHelpWidth) {
      out += line + "\n";
      line.assign(indent, ' ');
    }
    if (line.size() > indent) line += ' ';
    line += word;
  }
  if (line.size() > indent) out += line + "\n";
  return out;
}

// What a family flag applies to, with the formats: "LevelDB tables (leveldb-table)".
std::string Scope(const FlagDecl& d) {
  std::string names;
  for (const FormatCodec* f : d.formats)
    names += (names.empty() ? "" : ", ") + std::string(f->name());
  return std::string(d.applies_to) + (names.empty() ? "" : " (" + names + ")");
}

// The family flags of a subcommand's help: each as its family declares it.
std::string FamilyFlagsHelp(Subcommand id) {
  const std::vector<FamilyFlag> flags = FamilyFlags(id);
  if (flags.empty()) return {};
  std::string text = "Flags of the format families (each read by the family that declares it):\n";
  for (const FamilyFlag& f : flags) {
    text += "  " + Spelled(*f.decl) + ": " + Scope(*f.decl) + "\n";
    text += Wrapped(f.decl->help, 6);
  }
  return text;
}

// One line per family flag name: where it may be given and what it applies to.
std::string FamilyFlagsOverview() {
  struct Line {
    std::string spelled;
    std::vector<std::string_view> subcommands;
    std::vector<std::string_view> scopes;
  };
  std::vector<Line> lines;
  for (const FamilyFlag& f : FamilyFlags()) {
    const std::string spelled = Spelled(*f.decl);
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const Line& l) { return l.spelled == spelled; });
    if (it == lines.end()) it = lines.insert(lines.end(), Line{spelled, {}, {}});
    for (const SubcommandText& s : kSubcommands) {
      if (f.decl->subcommands.has(s.id) && std::find(it->subcommands.begin(), it->subcommands.end(),
                                                     s.name) == it->subcommands.end()) {
        it->subcommands.push_back(s.name);
      }
    }
    it->scopes.push_back(f.decl->applies_to);
  }
  if (lines.empty()) return {};
  std::string text =
      "Flags of the format families ('bloomcodec help SUBCOMMAND' says what each does):\n";
  for (const Line& l : lines) {
    std::string line = "  " + l.spelled;
    line.resize(std::max<std::size_t>(line.size() + 2, 44), ' ');
    std::string where;
    for (std::string_view s : l.subcommands) where += (where.empty() ? "" : ", ") + std::string(s);
    where += ":";
    for (std::size_t i = 0; i < l.scopes.size(); ++i) {
      where += (i == 0 ? " " : ", ") + std::string(l.scopes[i]);
    }
    text += line + where + "\n";
  }
  return text;
}

// The conversions the format families register (bloomcodec/convert.h), one line each.
std::string ConversionTable() {
  std::string text = "Conversions (besides a dump back to its format and a format to itself):\n";
  for (const ConversionInfo& c : Conversions()) {
    if (c.note.empty()) continue;  // a step of another rule, not a conversion of its own
    std::string line = "  " + std::string(c.from->name()) + " -> " + std::string(c.to->name());
    line.resize(std::max<std::size_t>(line.size() + 1, 48), ' ');
    line += std::string(ConversionKindName(c.kind));
    line.resize(std::max<std::size_t>(line.size() + 1, 58), ' ');
    text += line + std::string(c.note) + "\n";
  }
  return text;
}

std::string FormatTable() {
  std::string text = "Formats (--format):\n";
  for (const FormatCodec* f : AllFormats()) {
    std::string line = "  " + std::string(f->name());
    line.resize(std::max<std::size_t>(line.size() + 1, 26), ' ');
    line += f->summary();
    if (!f->params_help().empty()) line += " [" + std::string(f->params_help()) + "]";
    text += line + "\n";
  }
  if (AllFormats().empty()) text += "  (none built in)\n";
  return text;
}

constexpr std::string_view kExitCodes =
    "Exit status: 0 success; 1 a check found a problem (verify); 2 bad usage, unreadable or\n"
    "malformed input (one message on standard error naming the file, offset and what was\n"
    "expected).\n";

}  // namespace

std::string Synopsis(Subcommand subcommand) {
  const SubcommandText* s = Find(subcommand);
  if (!s) return {};
  std::string families;
  std::vector<std::string_view> named;
  for (const FamilyFlag& f : FamilyFlags(subcommand)) {
    if (std::find(named.begin(), named.end(), f.decl->name) != named.end()) continue;
    named.push_back(f.decl->name);
    families += " [" + Spelled(*f.decl) + "]";
  }
  std::string text(s->synopsis);
  const std::size_t at = text.find("{families}");
  if (at != std::string::npos) text.replace(at, std::string_view("{families}").size(), families);
  return text;
}

std::string_view Summary() {
  return "read, write and check the bloom filters of Cassandra, LevelDB and RocksDB,\n"
         "bit for bit as the originals do.\n";
}

std::string_view KeyFilesHelp() {
  return "Key files: one key per line ('\\n'); an empty line is the empty key; '--keys -' reads\n"
         "standard input; a name ending in .gz is read through gzip.\n";
}

std::string_view SubcommandDetails(Subcommand subcommand) {
  const SubcommandText* s = Find(subcommand);
  return s ? s->details : std::string_view();
}

std::string OverviewHelp() {
  std::string text = "bloomcodec: " + std::string(Summary()) + "\nUsage:\n";
  for (const SubcommandText& s : kSubcommands) text += "  bloomcodec " + Synopsis(s.id) + "\n";
  text += "  bloomcodec help SUBCOMMAND | bloomcodec SUBCOMMAND --help | bloomcodec --version\n\n";
  text += std::string(KeyFilesHelp()) + "\n";
  if (const std::string families = FamilyFlagsOverview(); !families.empty()) {
    text += families + "\n";
  }
  text += FormatTable();
  text += "\n";
  text += kExitCodes;
  return text;
}

std::string SubcommandHelp(std::string_view subcommand) {
  for (const SubcommandText& s : kSubcommands) {
    if (s.name != subcommand) continue;
    std::string text = "Usage: bloomcodec " + Synopsis(s.id) + "\n\n" + std::string(s.details);
    if (const std::string families = FamilyFlagsHelp(s.id); !families.empty()) {
      text += "\n" + families;
    }
    if (s.id == Subcommand::kConvert) text += "\n" + ConversionTable();
    text += "\n" + FormatTable();
    text += "\n";
    text += kExitCodes;
    return text;
  }
  return {};
}

std::string FormatNameList() {
  std::string names;
  for (const FormatCodec* f : AllFormats()) {
    if (!names.empty()) names += ", ";
    names += f->name();
  }
  return names.empty() ? "(none built in)" : names;
}

Result<const FormatCodec*> FormatByName(std::string_view name) {
  if (const FormatCodec* f = FindFormat(name)) return f;
  return Status::InvalidArgument("--format: unknown format '" + std::string(name) +
                                 "'; the formats are: " + FormatNameList());
}

Status MissingFormat(std::string_view why) {
  return Status::InvalidArgument("--format is required" + std::string(why) +
                                 "; the formats are: " + FormatNameList());
}

}  // namespace bloomcodec::tool
