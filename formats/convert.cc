// The convert engine (bloomcodec/convert.h): which conversions carry the bits over, and the
// checks that keep a rebuild from losing keys.
#include "bloomcodec/convert.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bloomcodec/byte_writer.h"
#include "bloomcodec/cassandra/filter_db.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/table_reader.h"
#include "bloomcodec/leveldb/table_writer.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/sst_reader.h"
#include "bloomcodec/rocksdb/sst_writer.h"
#include "inspect_support.h"
#include "leveldb/leveldb_inspect.h"

namespace bloomcodec {
namespace {

bool Is(const FormatCodec* f, std::string_view name) { return f && f->name() == name; }

bool HasSizing(const FilterParams& p) {
  return p.fp_chance || p.buckets_per_element || p.bits_per_key || p.expected_keys;
}

std::string DirectoryOf(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string(".") : std::string(path.substr(0, slash));
}

// A split manifest names each filter's file; read them (relative to the manifest) into base64.
Status ResolveSplitFiles(Document& doc, std::string_view source) {
  auto it = doc.find("filters");
  if (it == doc.end() || !it->is_array()) return BadDumpField(source, "filters", "an array");
  const std::string dir = DirectoryOf(source);
  for (std::size_t i = 0; i < it->size(); ++i) {
    Document& f = (*it)[i];
    if (!f.is_object() || !f.contains("file")) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(std::string name, DumpString(f, "file", source));
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
      return BadDumpField(source, "filters[" + std::to_string(i) + "].file",
                          "a file name in the manifest's directory");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(dir + "/" + name));
    if (f.contains("filter_bytes")) {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t n, DumpInt(f, "filter_bytes", source));
      if (n != static_cast<std::int64_t>(in.bytes().size())) {
        return Status::CorruptFile(in.path(), "the manifest says " + std::to_string(n) +
                                                  " bytes, the file has " +
                                                  std::to_string(in.bytes().size()));
      }
    }
    f["base64"] = ToBase64(in.bytes());
  }
  return {};
}

struct Decoded {
  const FormatCodec* format = nullptr;
  ByteVector owned;  // the undumped bytes of a JSON input
  ByteSpan bytes;
  bool from_document = false;
};

Result<Decoded> DecodeInput(const ConvertInput& input) {
  Decoded d;
  if (input.format) {
    d.format = input.format;
    d.bytes = input.bytes;
    return d;
  }
  Document doc = Document::parse(input.bytes.begin(), input.bytes.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::CorruptFile(input.source, "not a JSON object (a dump or a split manifest); "
                                             "give --format for a filter file");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string name, DumpString(doc, "format", input.source));
  d.format = FindFormat(name);
  if (!d.format) return BadDumpField(input.source, "format", "a format name, found \"" + name + "\"");
  auto manifest = doc.find("split_manifest");
  if (manifest != doc.end() && !manifest->is_boolean()) {
    return BadDumpField(input.source, "split_manifest", "true or false");
  }
  if (manifest != doc.end() && manifest->get<bool>()) {
    BLOOMCODEC_RETURN_IF_ERROR(ResolveSplitFiles(doc, input.source));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(d.owned, d.format->Undump(doc, input.source));
  d.bytes = d.owned;
  d.from_document = true;
  return d;
}

Conversion Single(std::string how, const FormatCodec* from, ByteVector bytes) {
  Conversion c;
  c.how = std::move(how);
  c.input_format = from;
  c.files.push_back({"", std::move(bytes)});
  return c;
}

void PutI32(ByteVector& out, std::int32_t v) {
  ByteWriter w(out);
  w.PutBigI32(v);
}

// cassandra-1.0 <-> cassandra-1.0-row: the same serialized filter with or without the i32
// length prefix of a row.
Result<Conversion> Reframe(const Decoded& in, const ConvertInput& input, const FormatCodec* to) {
  if (Is(to, "cassandra-1.0-row")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::FilterDb f, cassandra::FilterDb::Parse(in.bytes, input.source));
    ByteSpan filter = f.serialized();
    ByteVector out;
    out.reserve(4 + filter.size());
    PutI32(out, static_cast<std::int32_t>(filter.size()));
    out.insert(out.end(), filter.begin(), filter.end());
    Conversion c = Single("lossless", in.format, std::move(out));
    if (f.trailing_bytes() > 0) {
      c.warnings.push_back(std::to_string(f.trailing_bytes()) +
                           " bytes after the filter (ignored by Cassandra) are not carried over");
    }
    return c;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::RowFilter row, cassandra::RowFilter::Parse(in.bytes, input.source));
  ByteSpan filter = row.current()->serialized();
  Conversion c = Single("lossless", in.format, ByteVector(filter.begin(), filter.end()));
  const std::uint64_t dropped = in.bytes.size() - filter.size() - 4;
  if (dropped > 0) {
    c.warnings.push_back(std::to_string(dropped) + " bytes of the row after the filter (ignored by "
                         "Cassandra) are not carried over");
  }
  return c;
}

// cassandra-3.0 <-> cassandra-4.0: one bit set (new index order) in its two serializations.
Result<Conversion> Reserialize(const Decoded& in, const ConvertInput& input, const FormatCodec* to) {
  const auto layout = [](const FormatCodec* f) {
    return Is(f, "cassandra-3.0") ? cassandra::Murmur3Layout::kNewOrderLongs
                                  : cassandra::Murmur3Layout::kRawBytes;
  };
  BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::Murmur3Filter f,
                              cassandra::Murmur3Filter::Parse(in.bytes, input.source, layout(in.format)));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, cassandra::SwapMurmur3Serialization(
                                                  in.bytes, input.source, layout(in.format), layout(to)));
  Conversion c = Single("lossless", in.format, std::move(out));
  if (f.trailing_bytes() > 0) {
    c.warnings.push_back(std::to_string(f.trailing_bytes()) +
                         " bytes after the filter (ignored by Cassandra) are not carried over");
  }
  return c;
}

// The filter block to split: the input itself, or a table's.
struct SplitSource {
  ByteSpan block;
  std::uint64_t base_offset = 0;
  leveldb::HashFlavor flavor = leveldb::HashFlavor::kUnsignedTail;
  std::optional<leveldb::TableReader> table;  // keeps a table's (possibly owned) block alive
};

Result<SplitSource> FilterBlockOf(const Decoded& in, const ConvertInput& input,
                                  const ConvertOptions& options) {
  SplitSource s;
  if (Is(in.format, "leveldb-filter-block")) {
    s.block = in.bytes;
    return s;
  }
  leveldb::TableOpenOptions open;
  open.key_kind = options.key_kind == KeyKind::kAuto ? KeyKind::kPlain : options.key_kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader table,
                              leveldb::TableReader::Open(in.bytes, input.source, open));
  if (!table.filter()) {
    return Status::Refused(input.source + ": the table has no filter block to extract");
  }
  s.table.emplace(std::move(table));
  s.block = s.table->filter()->contents.bytes();
  s.base_offset = s.table->filter()->handle.offset;
  s.flavor = s.table->filter()->flavor;
  return s;
}

Result<Conversion> Split(const Decoded& in, const ConvertInput& input,
                         const ConvertOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SplitSource s, FilterBlockOf(in, input, options));
  const std::string_view filter_format = leveldb::BloomFormatName(s.flavor);
  if (options.to->name() != filter_format) {
    return Status::Refused(input.source + ": its filters are " + std::string(filter_format) +
                           " (a different hash than " + std::string(options.to->name()) +
                           "); split them with --to " + std::string(filter_format) +
                           ", or rebuild from keys");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Document fields,
                              leveldb::FilterBlockDumpFields(s.block, input.source, s.base_offset));
  Conversion c;
  c.how = "lossless";
  c.input_format = in.format;
  Document manifest = DumpHead("leveldb-filter-block");
  manifest["split_manifest"] = true;
  manifest["filter_format"] = std::string(filter_format);
  manifest["base_lg"] = fields["base_lg"];
  manifest["array_offset"] = fields["array_offset"];
  Document filters = Document::array();
  const std::size_t count = fields["filters"].size();
  for (std::size_t i = 0; i < count; ++i) {
    const Document& f = fields["filters"][i];
    ByteVector bytes;
    (void)FromBase64(f["base64"].get<std::string>(), bytes);  // ours, always valid
    Document entry;
    entry["offset"] = f["offset"];
    entry["file"] = SplitFilterFileName(i, count);
    entry["filter_bytes"] = bytes.size();
    filters.push_back(std::move(entry));
    c.files.push_back({SplitFilterFileName(i, count), std::move(bytes)});
  }
  manifest["filters"] = std::move(filters);
  const std::string text = manifest.dump(2) + "\n";
  c.files.push_back({std::string(kSplitManifestName), ByteVector(text.begin(), text.end())});
  return c;
}

// A table's filter block as a leveldb-filter-block file (the 1.18 hash only: that is the format).
Result<Conversion> ExtractFilterBlock(const Decoded& in, const ConvertInput& input,
                                      const ConvertOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SplitSource s, FilterBlockOf(in, input, options));
  if (s.flavor != leveldb::HashFlavor::kUnsignedTail) {
    return Status::Refused(input.source + ": the table's filter was written by LevelDB <= 1.17 "
                           "(signed-tail hash); leveldb-filter-block means the 1.18 hash. Split it "
                           "into leveldb-bloom-legacy filters (--to leveldb-bloom-legacy -o DIR/), "
                           "or rebuild with --from-table");
  }
  return Single("lossless", in.format, ByteVector(s.block.begin(), s.block.end()));
}

// True when `to` is a RocksDB full-filter format whose kind the input's trailer already has.
bool RocksdbKindMatches(const Decoded& in, const ConvertInput& input, const FormatCodec* to) {
  using rocksdb::FullFilterKind;
  FullFilterKind wanted;
  if (Is(to, "rocksdb-bloom-legacy")) {
    wanted = FullFilterKind::kLegacyBloom;
  } else if (Is(to, "rocksdb-bloom")) {
    wanted = FullFilterKind::kFastLocalBloom;
  } else if (Is(to, "rocksdb-ribbon")) {
    wanted = FullFilterKind::kRibbon;
  } else {
    return false;
  }
  Result<rocksdb::FullFilterReader> f = rocksdb::FullFilterReader::Parse(in.bytes, input.source);
  return f.ok() && f->kind() == wanted;
}

Result<int> TableBitsPerKey(const FilterParams& params) {
  if (params.fp_chance || params.buckets_per_element || params.expected_keys) {
    return Status::InvalidArgument("a table's filter takes --bits-per-key N only");
  }
  const double b = *params.bits_per_key;
  if (!(b >= 0) || b != std::floor(b) || b > 1'000'000) {
    return Status::InvalidArgument("--bits-per-key must be an integer from 0 to 1000000 "
                                   "(NewBloomFilterPolicy takes an int)");
  }
  return static_cast<int>(b);
}

// Rewrites the filter block with RewriteTableFilter, then reads the result back and verifies
// it: every data block has its filter and every stored key is answered "may contain".
Result<Conversion> RewriteTable(const Decoded& in, const ConvertInput& input,
                                const ConvertOptions& options) {
  if (options.keys) {
    return Status::InvalidArgument("a table's filter is rebuilt from the table's own keys; "
                                   "--keys / --index do not apply");
  }
  std::optional<leveldb::BloomPolicy> policy;
  if (!options.no_filter) {
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, TableBitsPerKey(options.params));
    policy = options.legacy_v117 ? leveldb::BloomPolicy::Legacy117(b)
                                 : leveldb::BloomPolicy::Current(b);
  }
  leveldb::TableOpenOptions open;
  open.key_kind = options.key_kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader table,
                              leveldb::TableReader::Open(in.bytes, input.source, open));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, leveldb::RewriteTableFilter(table, policy));
  open.key_kind = table.key_kind();
  open.verify_checksums = true;
  BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader check,
                              leveldb::TableReader::Open(out, input.source + " (rewritten)", open));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t entries, check.Verify());
  Conversion c = Single("rewritten", in.format, std::move(out));
  c.keys_used = entries;
  return c;
}

// An SST's full filter rebuilt from its own user keys (or removed); everything else carried over.
// The result is read back with every checksum verified and every key answered "may contain".
Result<Conversion> RewriteSst(const Decoded& in, const ConvertInput& input,
                              const ConvertOptions& options) {
  if (options.keys) {
    return Status::InvalidArgument("an SST's filter is rebuilt from the SST's own keys; "
                                   "--keys / --index do not apply");
  }
  if (options.params.fp_chance || options.params.buckets_per_element ||
      options.params.expected_keys) {
    return Status::InvalidArgument("rocksdb-sst takes only --bits-per-key B (or --no-filter)");
  }
  std::optional<double> bits_per_key;
  if (!options.no_filter) bits_per_key = *options.params.bits_per_key;
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                              rocksdb::SstReader::Open(in.bytes, input.source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, rocksdb::RewriteSstFilter(sst, bits_per_key));
  rocksdb::SstOpenOptions check_options;
  check_options.verify_checksums = true;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      rocksdb::SstReader check,
      rocksdb::SstReader::Open(out, input.source + " (rewritten)", check_options));
  std::uint64_t keys = 0;
  ByteVector last;
  BLOOMCODEC_RETURN_IF_ERROR(check.ForEachEntry([&](ByteSpan key, ByteSpan,
                                                    const blocktable::BlockHandle&) -> Status {
    const ByteSpan user = rocksdb::UserKeyOf(key);
    if (keys > 0 && std::equal(user.begin(), user.end(), last.begin(), last.end())) return Status();
    last.assign(user.begin(), user.end());
    ++keys;
    BLOOMCODEC_ASSIGN_OR_RETURN(bool maybe, check.MayContain(user));
    if (!maybe) {
      return Status::CorruptFile(input.source + " (rewritten)",
                                 "the rewritten filter misses a stored key (a bug: please report)");
    }
    return Status();
  }));
  Conversion c = Single("rewritten", in.format, std::move(out));
  c.keys_used = keys;
  return c;
}

// The user keys of an SST, each once, in file order.
Result<KeyList> SstKeys(const Decoded& in, const ConvertInput& input) {
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                              rocksdb::SstReader::Open(in.bytes, input.source));
  KeyList keys;
  ByteVector last;
  bool any = false;
  BLOOMCODEC_RETURN_IF_ERROR(sst.ForEachEntry([&](ByteSpan key, ByteSpan,
                                                  const blocktable::BlockHandle&) {
    const ByteSpan user = rocksdb::UserKeyOf(key);
    if (any && std::equal(user.begin(), user.end(), last.begin(), last.end())) return Status();
    keys.Add(user);
    last.assign(user.begin(), user.end());
    any = true;
    return Status();
  }));
  return keys;
}

// The stored keys of a table (user keys of a database table, consecutive versions once).
Result<KeyList> TableKeys(const Decoded& in, const ConvertInput& input,
                          const ConvertOptions& options) {
  if (Is(in.format, "rocksdb-sst")) return SstKeys(in, input);
  if (!Is(in.format, "leveldb-table")) {
    return Status::InvalidArgument("--from-table needs a leveldb-table input or a rocksdb-sst input");
  }
  leveldb::TableOpenOptions open;
  open.key_kind = options.key_kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader table,
                              leveldb::TableReader::Open(in.bytes, input.source, open));
  const bool user = table.key_kind() == KeyKind::kUser;
  KeyList keys;
  ByteVector last;
  bool any = false;
  BLOOMCODEC_RETURN_IF_ERROR(table.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
    ByteSpan k = user ? leveldb::UserKeyOf(key) : key;
    if (any && std::equal(k.begin(), k.end(), last.begin(), last.end())) return Status();
    keys.Add(k);
    last.assign(k.begin(), k.end());
    any = true;
    return Status();
  }));
  return keys;
}

std::string KeySourceHint(const FormatCodec* from) {
  std::string hint = "give the filter's keys with --keys K";
  if (from->name().starts_with("cassandra")) hint += " (or --index INDEX_DB, the SSTable's Index.db)";
  if (from->name() == "leveldb-table" || from->name() == "rocksdb-sst") {
    hint += " (or --from-table)";
  }
  return hint;
}

Result<Conversion> Rebuild(const Decoded& in, const ConvertInput& input,
                           const ConvertOptions& options) {
  const FormatCodec* to = options.to;
  if (options.keys && options.from_table) {
    return Status::InvalidArgument("give one key source: --keys / --index or --from-table");
  }
  if (!options.keys && !options.from_table) {
    return Status::Refused(
        input.source + ": the bits of " + std::string(in.format->name()) + " cannot carry over to " +
        std::string(to->name()) +
        (in.format == to ? " with new parameters" : " (a different hash, size or layout)") +
        "; a rebuild needs the keys: " + KeySourceHint(in.format));
  }
  KeyList table_keys;
  const KeyList* keys = options.keys;
  Conversion c;
  c.how = "rebuilt";
  c.input_format = in.format;
  if (options.from_table) {
    BLOOMCODEC_ASSIGN_OR_RETURN(table_keys, TableKeys(in, input, options));
    keys = &table_keys;
  } else {
    // Keys that the input answers 0 for were never added to it: the caller has the wrong key
    // file, and the rebuilt filter would claim keys the original never held.
    std::vector<std::uint8_t> answers(keys->size());
    ProbeOptions probe;
    probe.key_kind = options.key_kind;
    BLOOMCODEC_RETURN_IF_ERROR(in.format->Probe(in.bytes, input.source, *keys, probe, answers));
    const auto absent = static_cast<std::size_t>(std::count(answers.begin(), answers.end(), 0));
    if (absent > 0) {
      const std::size_t first = static_cast<std::size_t>(
          std::find(answers.begin(), answers.end(), 0) - answers.begin());
      std::string what = std::to_string(absent) + " of " + std::to_string(keys->size()) +
                         " keys of " + options.key_source +
                         (options.keys_from_index ? " (the first is entry " : " (the first on line ") +
                         std::to_string(first + 1) + ") are absent from " + input.source +
                         ": they are not the keys this filter was built from";
      if (!options.force) return Status::Refused(what + " (--force rebuilds anyway)");
      c.warnings.push_back(what);
    }
    // The converse cannot be checked exactly (a filter does not list its keys), but a fill that
    // implies more than twice the keys given means keys would be lost: refused like the check
    // above. From 20 estimated keys up, a factor of two is far outside the estimator's spread.
    Result<Document> facts = in.format->Inspect(in.bytes, input.source);
    if (facts.ok()) {
      const char* field = facts->contains("estimated_keys") ? "estimated_keys" : "estimated_keys_total";
      if (facts->contains(field) && (*facts)[field].is_number()) {
        const double estimate = (*facts)[field].get<double>();
        if (estimate >= 20 && static_cast<double>(keys->size()) < 0.5 * estimate) {
          const std::string about = std::isfinite(estimate)
                                        ? "about " + std::to_string(static_cast<long long>(estimate))
                                        : "more than any count of";
          std::string what = "the fill of " + input.source + " suggests " + about + " keys (" +
                             std::string(kEstimatorName) + ") but " + options.key_source +
                             " gives " + std::to_string(keys->size()) +
                             ": keys missing from it would not be in the rebuilt filter";
          if (!options.force) return Status::Refused(what + " (--force rebuilds anyway)");
          c.warnings.push_back(what);
        }
      }
    }
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, to->Build(*keys, options.params));
  // A correct build always passes; checked anyway, since this is the one promise of convert.
  std::vector<std::uint8_t> answers(keys->size());
  ProbeOptions probe;
  if (Is(to, "leveldb-table")) probe.key_kind = KeyKind::kPlain;
  BLOOMCODEC_RETURN_IF_ERROR(to->Probe(out, input.source + " (rebuilt)", *keys, probe, answers));
  if (std::find(answers.begin(), answers.end(), 0) != answers.end()) {
    return Status::Refused("internal error: the rebuilt filter misses a key; nothing written");
  }
  c.files.push_back({"", std::move(out)});
  c.keys_used = keys->size();
  return c;
}

}  // namespace

std::string SplitFilterFileName(std::size_t index, std::size_t count) {
  std::string digits = std::to_string(index);
  const std::size_t width = std::max<std::size_t>(3, std::to_string(count == 0 ? 0 : count - 1).size());
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return "filter-" + digits;
}

bool LooksLikeJsonDocument(ByteSpan bytes) {
  for (std::uint8_t b : bytes) {
    if (b == ' ' || b == '\n' || b == '\r' || b == '\t') continue;
    return b == '{';
  }
  return false;
}

Result<Conversion> Convert(const ConvertInput& input, const ConvertOptions& options) {
  const FormatCodec* to = options.to;
  if (!to) return Status::InvalidArgument("--to F is required");
  BLOOMCODEC_ASSIGN_OR_RETURN(Decoded in, DecodeInput(input));
  const FormatCodec* from = in.format;
  const bool table_change = options.no_filter || options.legacy_v117;
  if (options.no_filter && !options.legacy_v117 && Is(from, "rocksdb-sst") &&
      Is(to, "rocksdb-sst")) {
    // An SST's filter removed: handled with the rewrite below.
  } else if (table_change && !(Is(from, "leveldb-table") && Is(to, "leveldb-table"))) {
    return Status::InvalidArgument("--no-filter and --legacy-1.17 rewrite a table's filter: "
                                   "they need a leveldb-table input and --to leveldb-table");
  }
  if (options.no_filter && options.params.bits_per_key) {
    return Status::InvalidArgument("--no-filter removes the filter; --bits-per-key adds one: give one");
  }
  if (options.legacy_v117 && !options.params.bits_per_key) {
    return Status::InvalidArgument("--legacy-1.17 needs --bits-per-key N");
  }
  const bool keys_given = options.keys || options.from_table;
  if (options.split) {
    if (!(Is(to, "leveldb-bloom") || Is(to, "leveldb-bloom-legacy")) ||
        !(Is(from, "leveldb-filter-block") || Is(from, "leveldb-table"))) {
      return Status::InvalidArgument("an output directory (-o DIR/) is for splitting a filter "
                                     "block or a table's filter into raw filters: --to "
                                     "leveldb-bloom or leveldb-bloom-legacy");
    }
    if (keys_given || HasSizing(options.params)) {
      return Status::InvalidArgument("a split copies the filters as they are; it takes no keys "
                                     "and no sizing parameters");
    }
    return Split(in, input, options);
  }
  if (Is(to, "leveldb-table") && Is(from, "leveldb-table") &&
      (options.no_filter || options.params.bits_per_key)) {
    return RewriteTable(in, input, options);
  }
  if (Is(to, "rocksdb-sst") && Is(from, "rocksdb-sst") &&
      (options.no_filter || options.params.bits_per_key)) {
    return RewriteSst(in, input, options);
  }
  if (!keys_given && !HasSizing(options.params)) {
    if (from == to) return Single("lossless", from, ByteVector(in.bytes.begin(), in.bytes.end()));
    if ((Is(from, "cassandra-1.0") && Is(to, "cassandra-1.0-row")) ||
        (Is(from, "cassandra-1.0-row") && Is(to, "cassandra-1.0"))) {
      return Reframe(in, input, to);
    }
    if ((Is(from, "cassandra-3.0") && Is(to, "cassandra-4.0")) ||
        (Is(from, "cassandra-4.0") && Is(to, "cassandra-3.0"))) {
      return Reserialize(in, input, to);
    }
    if (from->name().starts_with("rocksdb-") && RocksdbKindMatches(in, input, to)) {
      // RocksDB reads a full filter by its trailer, not by its policy: a filter whose trailer
      // already is the target's kind (say a Ribbon policy's small FastLocalBloom filter, to
      // rocksdb-bloom) is that format as it stands.
      return Single("lossless", from, ByteVector(in.bytes.begin(), in.bytes.end()));
    }
    if (Is(from, "leveldb-table") && Is(to, "leveldb-filter-block")) {
      return ExtractFilterBlock(in, input, options);
    }
    if (Is(from, "rocksdb-sst") && to->name().starts_with("rocksdb-") && !Is(to, "rocksdb-sst")) {
      // The full filter block is a raw filter as it stands (its trailer says its kind).
      BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                                  rocksdb::SstReader::Open(in.bytes, input.source));
      if (!sst.filter() || sst.filter()->placement != rocksdb::FilterPlacement::kFull) {
        return Status::Refused(input.source + ": " +
                               (sst.filter() ? "a partitioned filter (one filter per partition)"
                                             : "no filter") +
                               " to carry over; rebuild one with --from-table and --bits-per-key");
      }
      const ByteSpan f = sst.filter()->contents.bytes();
      return Single("lossless", from, ByteVector(f.begin(), f.end()));
    }
    if (Is(from, "leveldb-filter-block") &&
        (Is(to, "leveldb-bloom") || Is(to, "leveldb-bloom-legacy"))) {
      // One filter carries over as a file of its own; several need a directory.
      BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::FilterBlockLayout layout,
                                  leveldb::ParseFilterBlockLayout(in.bytes, input.source));
      if (layout.filters.size() != 1 || !Is(to, "leveldb-bloom")) {
        return Status::Refused(
            input.source + ": a filter block of " + std::to_string(layout.filters.size()) +
            " filters (1.18 hash) splits into leveldb-bloom files: use --to leveldb-bloom -o DIR/ "
            "(one file per filter plus " + std::string(kSplitManifestName) + ")");
      }
      const leveldb::FilterRange r = layout.filters[0];
      ByteSpan f = in.bytes.subspan(r.start, r.size());
      return Single("lossless", from, ByteVector(f.begin(), f.end()));
    }
  }
  return Rebuild(in, input, options);
}

}  // namespace bloomcodec
