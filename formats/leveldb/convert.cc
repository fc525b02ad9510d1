// The LevelDB family's conversions: a filter block (or a table's) split into raw filters or
// extracted as it stands, and a table's filter rewritten from its own keys.
#include <cmath>
#include <optional>
#include <string>

#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/options.h"
#include "formats/leveldb/family.h"
#include "inspect_support.h"
#include "leveldb/inspect.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {
namespace {

using engine::ConvertCall;
using engine::OneFile;

// The filter block to split: the input itself, or a table's.
struct SplitSource {
  ByteSpan block;
  std::uint64_t base_offset = 0;
  HashFlavor flavor = HashFlavor::kUnsignedTail;
  bool goleveldb = false;            // a goleveldb table's filters
  bool writer_ambiguous = false;     // LevelDB 1.17's or goleveldb's: the keys cannot tell
  std::optional<TableReader> table;  // keeps a table's (possibly owned) block alive
};

Result<SplitSource> FilterBlockOf(const ConvertCall& call) {
  SplitSource s;
  if (call.from == Codec(FormatId::kFilterBlock)) {
    s.block = call.bytes;
    return s;
  }
  const LevelDbOptions mine = call.options.family.Get<LevelDbOptions>();
  TableOpenOptions open;
  open.key_kind = mine.key_kind;
  open.writer = mine.writer;
  // The key kind decides which keys tell LevelDB 1.17's filter from goleveldb's; a table whose
  // kind cannot be told is still split (its filter's bytes do not depend on it).
  Result<TableReader> opened = TableReader::Open(call.bytes, call.input.source, open);
  if (!opened.ok() && mine.key_kind == KeyKind::kAuto &&
      opened.status().code() == StatusCode::kInvalidArgument) {
    open.key_kind = KeyKind::kPlain;
    opened = TableReader::Open(call.bytes, call.input.source, open);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table, std::move(opened));
  if (!table.filter()) {
    return Status::Refused(call.input.source + ": the table has no filter block to extract");
  }
  if (table.filter()->variant == BloomVariant::kBasho2) {
    return Status::Refused(call.input.source +
                           ": the table was written by Basho's LevelDB (it has stats.sst1): its "
                           "filters are Basho's bloom2, which convert does not split or extract");
  }
  s.table.emplace(std::move(table));
  s.block = s.table->filter()->contents.bytes();
  s.base_offset = s.table->filter()->handle.offset;
  s.flavor = s.table->filter()->flavor;
  s.goleveldb = s.table->filter()->goleveldb;
  s.writer_ambiguous = s.table->filter()->writer_ambiguous;
  return s;
}

// One file per filter plus a list naming them (the list converts back to the block).
Result<std::optional<Conversion>> Split(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SplitSource s, FilterBlockOf(call));
  std::string_view filter_format = BloomFormatName(s.flavor, s.goleveldb);
  const std::string_view to = call.options.to->name();
  // A leveldb.BuiltinBloomFilter whose keys cannot tell 1.17 from goleveldb splits into either.
  if (s.writer_ambiguous && to == BloomFormatName(HashFlavor::kUnsignedTail, true)) {
    filter_format = to;
  }
  if (to != filter_format) {
    return Status::Refused(call.input.source + ": its filters are " + std::string(filter_format) +
                           " (a different hash than " + std::string(to) +
                           "); split them with --to " + std::string(filter_format) +
                           ", or rebuild from keys");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Document fields,
                              FilterBlockDumpFields(s.block, call.input.source, s.base_offset));
  Conversion c;
  c.kind = ConversionKind::kLossless;
  Document list = DumpHead(Codec(FormatId::kFilterBlock)->name());
  list["split_manifest"] = true;  // the contract's name of the field (docs/cli.md, "dump")
  list["filter_format"] = std::string(filter_format);
  list["base_lg"] = fields["base_lg"];
  list["array_offset"] = fields["array_offset"];
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
  list["filters"] = std::move(filters);
  const std::string text = list.dump(2) + "\n";
  c.files.push_back({std::string(kSplitListName), ByteVector(text.begin(), text.end())});
  return std::make_optional(std::move(c));
}

// A table's filter block as a leveldb-filter-block file (the 1.18 hash only: that is the format).
Result<std::optional<Conversion>> ExtractFilterBlock(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SplitSource s, FilterBlockOf(call));
  if (s.flavor != HashFlavor::kUnsignedTail) {
    return Status::Refused(call.input.source +
                           ": the table's filter was written by LevelDB <= 1.17 "
                           "(signed-tail hash); leveldb-filter-block means the 1.18 hash. Split it "
                           "into leveldb-bloom-legacy filters (--to leveldb-bloom-legacy -o DIR/), "
                           "or rebuild with --from-table");
  }
  return std::make_optional(
      OneFile(ConversionKind::kLossless, ByteVector(s.block.begin(), s.block.end())));
}

// goleveldb's filter and LevelDB 1.18's are the same bytes answered by the same hash (below
// 512 MiB, where goleveldb's 32-bit modulus starts to differ).
Result<std::optional<Conversion>> SameBloomBytes(const ConvertCall& call) {
  if (!GoLevelDbModulusIsLevelDbs(call.bytes)) {
    return Status::Refused(call.input.source + ": a filter of " +
                           std::to_string(call.bytes.size()) +
                           " bytes (over 512 MiB): goleveldb takes its bit count modulo 2^32, "
                           "LevelDB does not; rebuild from keys instead");
  }
  return std::make_optional(
      OneFile(ConversionKind::kLossless, ByteVector(call.bytes.begin(), call.bytes.end())));
}

// One filter carries over as a file of its own; several need a directory.
Result<std::optional<Conversion>> SingleFilterOfBlock(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterBlockLayout layout,
                              ParseFilterBlockLayout(call.bytes, call.input.source));
  if (layout.filters.size() != 1 || call.options.to != Codec(FormatId::kBloom)) {
    return Status::Refused(
        call.input.source + ": a filter block of " + std::to_string(layout.filters.size()) +
        " filters (1.18 hash) splits into leveldb-bloom files: use --to leveldb-bloom -o DIR/ "
        "(one file per filter plus " +
        std::string(kSplitListName) + ")");
  }
  const FilterRange r = layout.filters[0];
  ByteSpan f = call.bytes.subspan(r.start, r.size());
  return std::make_optional(OneFile(ConversionKind::kLossless, ByteVector(f.begin(), f.end())));
}

Result<int> TableBitsPerKey(const FilterParams& params) {
  if (params.fp_chance || params.buckets_per_element || params.expected_keys) {
    return Status::InvalidArgument("a table's filter takes --bits-per-key N only");
  }
  const double b = *params.bits_per_key;
  if (!(b >= 0) || b != std::floor(b) || b > 1'000'000) {
    return Status::InvalidArgument(
        "--bits-per-key must be an integer from 0 to 1000000 "
        "(NewBloomFilterPolicy takes an int)");
  }
  return static_cast<int>(b);
}

// Whether a rewrite keeps goleveldb's filter (leveldb.BuiltinBloomFilter, goleveldb's sizing):
// for a table goleveldb wrote (decided from its keys as verify decides, or --writer goleveldb),
// and for one whose keys cannot tell LevelDB 1.17 from goleveldb: for those keys both hashes are
// the same, so the filter is what either writer builds and either one's database reads it (a
// 1.18 name would make both ignore it).
bool KeepsGoLevelDbFilter(const TableReader& table, FilterWriter forced) {
  if (forced == FilterWriter::kGoLevelDb) return true;
  const std::optional<TableFilter>& f = table.filter();
  return f && (f->goleveldb || (f->writer_ambiguous && !f->writer_forced));
}

// The filter a rewrite writes: the one --filter-for (or --legacy-1.17) names, else the input's
// writer's (1.18's for a LevelDB 1.17 table, which 1.18 and later would ignore).
BloomPolicy RewritePolicy(const LevelDbOptions& mine, const TableReader& table, int b) {
  switch (mine.legacy_v117 ? FilterWriter::kLevelDb117 : mine.filter_for) {
    case FilterWriter::kLevelDb: return BloomPolicy::Current(b);
    case FilterWriter::kLevelDb117: return BloomPolicy::Legacy117(b);
    case FilterWriter::kGoLevelDb: return BloomPolicy::GoLevelDb(b);
    case FilterWriter::kAuto: break;
  }
  return KeepsGoLevelDbFilter(table, mine.writer) ? BloomPolicy::GoLevelDb(b)
                                                  : BloomPolicy::Current(b);
}

// Rewrites the filter block with RewriteTableFilter, then reads the result back and verifies
// it: every data block has its filter and every stored key is answered "may contain". Not a
// rewrite (nullopt) unless --bits-per-key or --no-filter asks for one.
Result<std::optional<Conversion>> RewriteTable(const ConvertCall& call) {
  const ConvertOptions& options = call.options;
  const LevelDbOptions mine = options.family.Get<LevelDbOptions>();
  if (!mine.no_filter && !options.params.bits_per_key) return std::optional<Conversion>();
  if (options.keys) {
    return Status::InvalidArgument(
        "a table's filter is rebuilt from the table's own keys; "
        "--keys / --index do not apply");
  }
  TableOpenOptions open;
  open.key_kind = mine.key_kind;
  open.writer = mine.writer;
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table,
                              TableReader::Open(call.bytes, call.input.source, open));
  std::optional<BloomPolicy> policy;
  if (!mine.no_filter) {
    BLOOMCODEC_ASSIGN_OR_RETURN(int b, TableBitsPerKey(options.params));
    policy = RewritePolicy(mine, table, b);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, RewriteTableFilter(table, policy));
  open.key_kind = table.key_kind();
  open.verify_checksums = true;
  // The new filter is read as its writer's database reads it (a forced writer named the input's).
  open.writer = policy && policy->goleveldb_name ? FilterWriter::kGoLevelDb : FilterWriter::kAuto;
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader check,
                              TableReader::Open(out, call.input.source + " (rewritten)", open));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t entries, check.Verify());
  Conversion c = OneFile(ConversionKind::kRewritten, std::move(out));
  c.keys_used = entries;
  return std::make_optional(std::move(c));
}

}  // namespace

// The stored keys of a table (user keys of a database table, consecutive versions once).
Result<KeyList> TableKeys(const FormatCodec*, ByteSpan bytes, std::string_view source,
                          const FamilyOptions& options) {
  TableOpenOptions open;
  open.key_kind = options.Get<LevelDbOptions>().key_kind;
  BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table,
                              TableReader::Open(bytes, std::string(source), open));
  const bool user = table.key_kind() == KeyKind::kUser;
  KeyList keys;
  ByteVector last;
  bool any = false;
  BLOOMCODEC_RETURN_IF_ERROR(
      table.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
        ByteSpan k = user ? UserKeyOf(key) : key;
        if (any && std::equal(k.begin(), k.end(), last.begin(), last.end())) return Status();
        keys.Add(k);
        last.assign(k.begin(), k.end());
        any = true;
        return Status();
      }));
  return keys;
}

std::span<const engine::ConversionRule> ConversionRules() {
  using engine::When;
  const FormatCodec* bloom = Codec(FormatId::kBloom);
  const FormatCodec* legacy = Codec(FormatId::kBloomLegacy);
  const FormatCodec* go = Codec(FormatId::kGoLevelDbBloom);
  const FormatCodec* block = Codec(FormatId::kFilterBlock);
  const FormatCodec* table = Codec(FormatId::kTable);
  constexpr ConversionKind kLossless = ConversionKind::kLossless;
  constexpr ConversionKind kRewritten = ConversionKind::kRewritten;
  static const engine::ConversionRule rules[] = {
      {block, bloom, kLossless, When::kSplit, Split, "-o DIR/: one file per filter + filters.json"},
      {block, legacy, kLossless, When::kSplit, Split,
       "-o DIR/: one file per filter + filters.json"},
      {table, bloom, kLossless, When::kSplit, Split, "-o DIR/: the table's filters, one file each"},
      {table, legacy, kLossless, When::kSplit, Split,
       "-o DIR/: the table's filters, one file each"},
      {table, go, kLossless, When::kSplit, Split,
       "-o DIR/: a goleveldb table's filters, one file each"},
      {go, bloom, kLossless, When::kBitsCarryOver, SameBloomBytes,
       "the same bytes: goleveldb's filter is 1.18's hash and layout"},
      {bloom, go, kLossless, When::kBitsCarryOver, SameBloomBytes,
       "the same bytes: goleveldb reads 1.18's filter as its own"},
      {table, table, kRewritten, When::kTableRewrite, RewriteTable,
       "--bits-per-key N [--legacy-1.17 | --filter-for W] or --no-filter: the filter block "
       "rebuilt (goleveldb's for a goleveldb table) or removed"},
      {table, block, kLossless, When::kBitsCarryOver, ExtractFilterBlock,
       "the table's filter block as it stands (1.18 hash)"},
      {block, bloom, kLossless, When::kBitsCarryOver, SingleFilterOfBlock,
       "a block of one filter: that filter"},
      {block,
       legacy,
       kLossless,
       When::kBitsCarryOver,
       SingleFilterOfBlock,
       {}},  // refused with advice: a filter block holds 1.18 filters
  };
  return rules;
}

}  // namespace bloomcodec::leveldb
