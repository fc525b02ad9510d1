#include "usage.h"

#include <algorithm>

#include "bloomcodec/convert.h"

namespace bloomcodec::tool {

namespace {

struct SubcommandText {
  std::string_view name;
  std::string_view synopsis;
  std::string_view details;
};

constexpr SubcommandText kSubcommands[] = {
    {"build",
     "build --format F --keys K [--key-format text|hex|base64] PARAMS [--expected-keys N] -o OUT "
     "[--json]",
     "Writes the filter the original writes for these keys and parameters, byte for byte.\n"
     "PARAMS: --fp-chance P | --buckets-per-element N | --bits-per-key B (see below which\n"
     "format takes which). --expected-keys N sizes the filter for N keys instead of the number\n"
     "of keys given. OUT is written to a temporary name and renamed; OUT ending in .gz is\n"
     "gzip-compressed; '-o -' writes the filter to standard output. OUT may not be the key file.\n"
     "--json reports what was written as one JSON document (not with '-o -').\n"},
    {"probe",
     "probe FILE [--format F] --keys K [--key-format text|hex|base64] [--key-kind user|plain] "
     "[--writer W] [--json]",
     "Prints, for each key in input order, 1 (may contain) or 0 (definitely not): the\n"
     "original's answer, false positives included. --format may be left out when FILE says what\n"
     "it is (a Cassandra file name with its version, a LevelDB or RocksDB table footer). For a\n"
     "RocksDB SST, the answer of its full (or partitioned) filter for the user key.\n"
     "--key-kind: for a LevelDB\n"
     "table, whether probes are user keys of a database (user) or keys as a TableBuilder stored\n"
     "them (plain); --writer leveldb|leveldb-1.17|goleveldb, who wrote its filter (by default\n"
     "decided from the table's keys). --json prints one JSON document instead (see the README).\n"},
    {"hash", "hash --format F --keys K [--key-format text|hex|base64] [--json]",
     "Prints the format's hash of each key, one tab-separated line per key, in input order.\n"
     "--json prints {\"hashes\": [[values of key 1], ...]} with exact integers instead.\n"},
    {"size",
     "size --format F --expected-keys N (--fp-chance P | --buckets-per-element B | --bits-per-key "
     "B) [--json]",
     "Prints the filter the original would allocate for N keys: hash count, buckets per element\n"
     "or bits per key, bits, words, file size, and the warnings the original logs. Refuses\n"
     "(exit 2) exactly where the original refuses.\n"},
    {"inspect", "inspect FILE... [--format F] [--json]",
     "Prints what each FILE holds: format, header fields, sizes, bits set, fill ratio, the\n"
     "estimated number of keys (Swamidass-Baldi) and false-positive rate, and what the\n"
     "parameters promised (Cassandra: the buckets per element K implies and the key count the\n"
     "filter was sized for; LevelDB: the bits-per-key range of k; RocksDB: the trailer's kind\n"
     "and geometry). Tables: footer, metaindex, the filter block's layout, which data blocks\n"
     "each filter serves, per-filter statistics; RocksDB SSTs also the properties block.\n"
     "A FILE that is a LevelDB or RocksDB database directory: what CURRENT and its MANIFEST\n"
     "say, the live tables per column family and level with sizes and key ranges.\n"
     "--json prints {\"files\": [one document per FILE]} (see the README).\n"},
    {"verify",
     "verify PATH... [--keys K [--key-format F] | --index INDEX_DB | --from-table] [--format F] "
     "[--key-kind user|plain] [--partitioner random|order-preserving] "
     "[--prefix-extractor fixed:N|capped:N|noop] [--writer W] [--json]",
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
     "tables). --writer leveldb|leveldb-1.17|goleveldb: who wrote a single table's filter\n"
     "(by default decided from its keys). Exit 1 when a file has an error finding (a damaged file "
     "inside a directory\n"
     "included); warnings alone exit 0. --json prints one JSON document (see the README).\n"
     "--partitioner: how Index.db keys of Cassandra sstables before version e are read\n"
     "(default: told from the data).\n"
     "RocksDB prefix filters: the prefixes of RocksDB's built-in extractors that a table names\n"
     "are checked too; --prefix-extractor names one for SSTs given as files (a custom one).\n"},
    {"convert",
     "convert IN -o OUT --to F [--format F] [PARAMS] [--keys K [--key-format F] | --index "
     "INDEX_DB | --from-table] [--no-filter] [--legacy-1.17] [--key-kind user|plain] [--writer W] "
     "[--force] [--json]",
     "Lossless where the bits carry over: a dump (or a split's manifest.json) back to its\n"
     "format, a format to itself, and the conversions listed below. Otherwise a rebuild from\n"
     "the filter's keys with PARAMS (--keys, --index Index.db, --from-table); keys the input\n"
     "answers 0 for are refused (--force overrides). A table to its own format with\n"
     "--bits-per-key or --no-filter rewrites its filter from its own keys (LevelDB tables also\n"
     "take --legacy-1.17 for 1.17's policy; a goleveldb table keeps goleveldb's filter, and\n"
     "--writer leveldb|leveldb-1.17|goleveldb says who wrote the input's filter). '-o DIR/'\n"
     "splits a filter block (or a table's filter) into raw filters (DIR/filter-NNN +\n"
     "DIR/manifest.json). Never writes over an input; OUT ending in .gz is gzipped.\n"},
    {"dump", "dump FILE [--format F] --json",
     "Prints everything in FILE as one JSON document (header fields, bits as base64) that\n"
     "'convert DUMP --to F -o OUT' turns back into the same bytes.\n"},
};

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

std::string OverviewHelp() {
  std::string text =
      "bloomcodec: read, write and check the bloom filters of Cassandra, LevelDB and RocksDB,\n"
      "bit for bit as the originals do.\n\nUsage:\n";
  for (const SubcommandText& s : kSubcommands)
    text += "  bloomcodec " + std::string(s.synopsis) + "\n";
  text +=
      "  bloomcodec help SUBCOMMAND | bloomcodec SUBCOMMAND --help | bloomcodec --version\n\n"
      "Key files: one key per line ('\\n'); an empty line is the empty key; '--keys -' reads\n"
      "standard input; a name ending in .gz is read through gzip.\n\n";
  text += FormatTable();
  text += "\n";
  text += kExitCodes;
  return text;
}

std::string SubcommandHelp(std::string_view subcommand) {
  for (const SubcommandText& s : kSubcommands) {
    if (s.name != subcommand) continue;
    std::string text =
        "Usage: bloomcodec " + std::string(s.synopsis) + "\n\n" + std::string(s.details);
    if (s.name == "convert") text += "\n" + ConversionTable();
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
