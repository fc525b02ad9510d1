// The convert engine (bloomcodec/convert.h): the order in which conversions are tried, and the
// checks that keep a rebuild from losing keys. Which conversions carry bits over is not decided
// here: each format family registers its rules (engine/family.h) and this file looks them up.
#include "bloomcodec/convert.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bloomcodec/input_file.h"
#include "engine/family.h"
#include "inspect_support.h"

namespace bloomcodec {
namespace {

using engine::ConversionRule;
using engine::When;

bool HasSizing(const FilterParams& p) {
  return p.fp_chance || p.buckets_per_element || p.bits_per_key || p.expected_keys;
}

std::string DirectoryOf(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string(".") : std::string(path.substr(0, slash));
}

// A split's list names each filter's file; read them (relative to the list) into base64.
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
                          "a file name in the list's directory");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(dir + "/" + name));
    if (f.contains("filter_bytes")) {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t n, DumpInt(f, "filter_bytes", source));
      if (n != static_cast<std::int64_t>(in.bytes().size())) {
        return Status::CorruptFile(in.path(), "the split's list says " + std::to_string(n) +
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
    return Status::CorruptFile(input.source,
                               "not a JSON object (a dump or a split's filters.json); "
                               "give --format for a filter file");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string name, DumpString(doc, "format", input.source));
  d.format = FindFormat(name);
  if (!d.format)
    return BadDumpField(input.source, "format", "a format name, found \"" + name + "\"");
  // A split's list says so in a field that keeps its older name (docs/cli.md, "dump").
  auto split = doc.find("split_manifest");
  if (split != doc.end() && !split->is_boolean()) {
    return BadDumpField(input.source, "split_manifest", "true or false");
  }
  if (split != doc.end() && split->get<bool>()) {
    BLOOMCODEC_RETURN_IF_ERROR(ResolveSplitFiles(doc, input.source));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(d.owned, d.format->Undump(doc, input.source));
  d.bytes = d.owned;
  d.from_document = true;
  return d;
}

// Rules of the families, in registration order, for one (from, to) pair and occasion.
std::vector<const ConversionRule*> RulesFor(const FormatCodec* from, const FormatCodec* to,
                                            When when) {
  std::vector<const ConversionRule*> found;
  for (const ConversionRule* r : engine::AllConversionRules()) {
    if (r->from == from && r->to == to && r->when == when) found.push_back(r);
  }
  return found;
}

// "a or b", "a, b or c": the formats some rules name, for messages.
std::string OrList(const std::vector<std::string_view>& names, std::string_view last_joint) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? last_joint : ", ";
    text += names[i];
  }
  return text;
}

void AddOnce(std::vector<std::string_view>& names, const FormatCodec* f) {
  if (std::find(names.begin(), names.end(), f->name()) == names.end()) names.push_back(f->name());
}

// The formats whose files hold their own keys (--from-table).
std::vector<std::string_view> TableFormatNames() {
  std::vector<std::string_view> names;
  for (const engine::Family* family : engine::Families()) {
    for (const FormatCodec* f : family->keys.tables) AddOnce(names, f);
  }
  return names;
}

bool IsTable(const FormatCodec* format) {
  const engine::Family* family = engine::FamilyOf(format);
  if (!family) return false;
  const auto& tables = family->keys.tables;
  return std::find(tables.begin(), tables.end(), format) != tables.end();
}

Conversion Copy(const Decoded& in) {
  Conversion c;
  c.kind = ConversionKind::kLossless;
  c.input_format = in.format;
  c.files.push_back({"", ByteVector(in.bytes.begin(), in.bytes.end())});
  return c;
}

// The first rule that applies to the input, or nullopt when none does.
Result<std::optional<Conversion>> RunFirst(const std::vector<const ConversionRule*>& rules,
                                           const Decoded& in, const ConvertInput& input,
                                           const ConvertOptions& options) {
  const engine::ConvertCall call{in.format, in.bytes, input, options};
  for (const ConversionRule* rule : rules) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<Conversion> c, rule->run(call));
    if (!c) continue;
    if (!c->input_format) c->input_format = in.format;
    return c;
  }
  return std::optional<Conversion>();
}

// The stored keys of a table input (--from-table).
Result<KeyList> TableKeys(const Decoded& in, const ConvertInput& input,
                          const ConvertOptions& options) {
  const engine::Family* family = engine::FamilyOf(in.format);
  if (!IsTable(in.format) || !family->keys.table_keys) {
    std::vector<std::string_view> names = TableFormatNames();
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "a " : " or a ") + std::string(names[i]) + " input";
    }
    return Status::InvalidArgument("--from-table needs " + list);
  }
  return family->keys.table_keys(in.format, in.bytes, input.source, options.family);
}

std::string KeySourceHint(const FormatCodec* from) {
  std::string hint = "give the filter's keys with --keys K";
  const engine::Family* family = engine::FamilyOf(from);
  if (family && family->keys.index_keys) hint += family->keys.index_hint;
  if (IsTable(from)) hint += " (or --from-table)";
  return hint;
}

// Every key of `keys` through `probe`, a chunk at a time: how many there are, how many are
// answered 0 and the index of the first of those.
struct ProbeTally {
  std::uint64_t keys = 0;
  std::uint64_t absent = 0;
  std::optional<std::uint64_t> first_absent;
};
Result<ProbeTally> ProbeEveryKey(const FileProbe& probe, const KeyStream& keys) {
  ProbeTally t;
  std::vector<std::uint8_t> answers;
  BLOOMCODEC_RETURN_IF_ERROR(keys.ForEachChunk([&](std::span<const ByteSpan> chunk) -> Status {
    answers.assign(chunk.size(), 0);
    BLOOMCODEC_RETURN_IF_ERROR(probe.Probe(chunk, answers));
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (answers[i] != 0) continue;
      if (!t.first_absent) t.first_absent = t.keys + i;
      ++t.absent;
    }
    t.keys += chunk.size();
    return Status();
  }));
  return t;
}

// Keys that the input answers 0 for were never added to it: the caller has the wrong key file,
// and the rebuilt filter would claim keys the original never held. Refused unless --force.
// Returns the number of keys (this is the pass that reads them all before anything is built).
Result<std::uint64_t> CheckKeysAreTheInputs(const Decoded& in, const ConvertInput& input,
                                            const ConvertOptions& options, const KeyStream& keys,
                                            Conversion& c) {
  ProbeOptions probe;
  probe.family = options.family;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<FileProbe> prober,
                              in.format->OpenProbe(in.bytes, input.source, probe));
  BLOOMCODEC_ASSIGN_OR_RETURN(ProbeTally t, ProbeEveryKey(*prober, keys));
  if (t.absent > 0) {
    const bool entries = keys.key_unit() == "entry";
    std::string what = std::to_string(t.absent) + " of " + std::to_string(t.keys) + " keys of " +
                       keys.source() +
                       (entries ? " (the first is entry " : " (the first on line ") +
                       std::to_string(*t.first_absent + 1) + ") are absent from " + input.source +
                       ": they are not the keys this filter was built from";
    if (!options.force) return Status::Refused(what + " (--force rebuilds anyway)");
    c.warnings.push_back(what);
  }
  // The converse cannot be checked exactly (a filter does not list its keys), but a fill that
  // implies more than twice the keys given means keys would be lost: refused like the check
  // above. From 20 estimated keys up, a factor of two is far outside the estimator's spread.
  Result<Document> facts = in.format->Inspect(in.bytes, input.source);
  if (!facts.ok()) return t.keys;
  const char* field = facts->contains("estimated_keys") ? "estimated_keys" : "estimated_keys_total";
  if (!facts->contains(field) || !(*facts)[field].is_number()) return t.keys;
  const double estimate = (*facts)[field].get<double>();
  if (estimate >= 20 && static_cast<double>(t.keys) < 0.5 * estimate) {
    const std::string about = std::isfinite(estimate)
                                  ? "about " + std::to_string(static_cast<long long>(estimate))
                                  : "more than any count of";
    std::string what = "the fill of " + input.source + " suggests " + about + " keys (" +
                       std::string(kEstimatorName) + ") but " + keys.source() + " gives " +
                       std::to_string(t.keys) +
                       ": keys missing from it would not be in the rebuilt filter";
    if (!options.force) return Status::Refused(what + " (--force rebuilds anyway)");
    c.warnings.push_back(what);
  }
  return t.keys;
}

Result<Conversion> Rebuild(const Decoded& in, const ConvertInput& input,
                           const ConvertOptions& options) {
  const FormatCodec* to = options.to;
  if (options.keys && options.from_table) {
    return Status::InvalidArgument("give one key source: --keys / --index or --from-table");
  }
  if (!options.keys && !options.from_table) {
    return Status::Refused(
        input.source + ": the bits of " + std::string(in.format->name()) +
        " cannot carry over to " + std::string(to->name()) +
        (in.format == to ? " with new parameters" : " (a different hash, size or layout)") +
        "; a rebuild needs the keys: " + KeySourceHint(in.format));
  }
  Conversion c;
  c.kind = ConversionKind::kRebuilt;
  c.input_format = in.format;
  // A table's keys are read whole (a table is bounded: LevelDB's are megabytes, RocksDB's SSTs
  // at most a few hundred); every other source is streamed.
  KeyList table_keys;
  std::unique_ptr<KeyStream> table_stream;
  const KeyStream* keys = options.keys;
  std::uint64_t count = 0;
  if (options.from_table) {
    BLOOMCODEC_ASSIGN_OR_RETURN(table_keys, TableKeys(in, input, options));
    table_stream = KeyListStream(table_keys, input.source, "key");
    keys = table_stream.get();
    count = table_keys.size();
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(count, CheckKeysAreTheInputs(in, input, options, *keys, c));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<FilterBuilder> builder,
                              to->StartBuild(count, options.params));
  BLOOMCODEC_RETURN_IF_ERROR(
      keys->ForEachChunk([&](std::span<const ByteSpan> chunk) { return builder->Add(chunk); }));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, builder->Finish());
  builder.reset();
  // A correct build always passes; checked anyway, since this is the one promise of convert.
  BLOOMCODEC_ASSIGN_OR_RETURN(
      std::unique_ptr<FileProbe> rebuilt,
      to->OpenProbe(out, input.source + " (rebuilt)", to->BuiltProbeOptions()));
  BLOOMCODEC_ASSIGN_OR_RETURN(ProbeTally t, ProbeEveryKey(*rebuilt, *keys));
  if (t.absent > 0 || t.keys != count) {
    return Status::Internal("internal error: the rebuilt filter misses a key; nothing written");
  }
  c.files.push_back({"", std::move(out)});
  c.keys_used = count;
  return c;
}

// The families' own options: each one the input (and, for a rewrite's, --to) admits, then the
// input's family's checks of them against the rest of the call.
Status CheckFamilyOptions(const Decoded& in, const ConvertInput& input,
                          const ConvertOptions& options) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckFamilyFlags(
      Subcommand::kConvert, options.family,
      {.path = input.source,
       .format = in.format,
       .what = in.from_document ? std::string_view("a JSON document") : std::string_view(),
       .to = options.to}));
  const engine::Family* family = engine::FamilyOf(in.format);
  if (!family || !family->flags.check_convert) return Status();
  return family->flags.check_convert({in.format, in.bytes, input, options});
}

Result<Conversion> SplitInto(const Decoded& in, const ConvertInput& input,
                             const ConvertOptions& options, bool keys_given) {
  const std::vector<const ConversionRule*> rules = RulesFor(in.format, options.to, When::kSplit);
  if (rules.empty()) {
    std::vector<std::string_view> targets;
    for (const ConversionRule* r : engine::AllConversionRules()) {
      if (r->when == When::kSplit) AddOnce(targets, r->to);
    }
    return Status::InvalidArgument(
        "an output directory (-o DIR/) is for splitting a filter "
        "block or a table's filter into raw filters: --to " +
        OrList(targets, " or "));
  }
  if (keys_given || HasSizing(options.params)) {
    return Status::InvalidArgument(
        "a split copies the filters as they are; it takes no keys "
        "and no sizing parameters");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<Conversion> c, RunFirst(rules, in, input, options));
  if (!c) return Status::Refused(input.source + ": nothing to split");
  return std::move(*c);
}

}  // namespace

std::string ConvertedFilePath(std::string_view output, const ConvertedFile& file) {
  return file.name.empty() ? std::string(output) : std::string(output) + "/" + file.name;
}

// docs/schema/convert.schema.json's version: additive changes keep it; a field removed, renamed
// or retyped raises it (docs/cli.md, "JSON").
constexpr int kConvertJsonSchemaVersion = 1;

Document ConversionReport(const Conversion& conversion, const ConvertOptions& options,
                          std::string_view input, std::string_view output) {
  Document report;
  report["schema_version"] = kConvertJsonSchemaVersion;
  report["input"] = std::string(input);
  report["input_format"] =
      conversion.input_format ? std::string(conversion.input_format->name()) : "";
  report["output"] = std::string(output);
  report["format"] = options.to ? std::string(options.to->name()) : "";
  report["how"] = std::string(ConversionKindName(conversion.kind));
  Document written = Document::array();
  std::uint64_t total = 0;
  for (const ConvertedFile& f : conversion.files) {
    Document w;
    w["path"] = ConvertedFilePath(output, f);
    w["bytes"] = f.bytes.size();
    written.push_back(std::move(w));
    total += f.bytes.size();
  }
  report["bytes"] = total;
  if (options.split) report["files"] = std::move(written);
  if (conversion.keys_used) report["keys"] = *conversion.keys_used;
  if (options.keys) report["key_source"] = options.keys->source();
  if (options.from_table) report["key_source"] = "table";
  report["warnings"] = conversion.warnings;
  return report;
}

std::string_view ConversionKindName(ConversionKind kind) {
  switch (kind) {
    case ConversionKind::kLossless: return "lossless";
    case ConversionKind::kRebuilt: return "rebuilt";
    case ConversionKind::kRewritten: return "rewritten";
  }
  return "rebuilt";
}

std::string SplitFilterFileName(std::size_t index, std::size_t count) {
  std::string digits = std::to_string(index);
  const std::size_t width =
      std::max<std::size_t>(3, std::to_string(count == 0 ? 0 : count - 1).size());
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

// The order: the families' options checked; a split (the output is a directory); a table's
// filter rewritten (when the family's options or --bits-per-key ask for it); the bits carried
// over (a format to itself, then the families' rules); else a rebuild.
Result<Conversion> Convert(const ConvertInput& input, const ConvertOptions& options) {
  const FormatCodec* to = options.to;
  if (!to) return Status::InvalidArgument("--to F is required");
  BLOOMCODEC_ASSIGN_OR_RETURN(Decoded in, DecodeInput(input));
  const FormatCodec* from = in.format;
  BLOOMCODEC_RETURN_IF_ERROR(CheckFamilyOptions(in, input, options));
  const bool keys_given = options.keys || options.from_table;
  if (options.split) return SplitInto(in, input, options, keys_given);
  if (from == to) {
    const std::vector<const ConversionRule*> rewrites = RulesFor(from, to, When::kTableRewrite);
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<Conversion> c,
                                RunFirst(rewrites, in, input, options));
    if (c) return std::move(*c);
  }
  if (!keys_given && !HasSizing(options.params)) {
    if (from == to) return Copy(in);
    BLOOMCODEC_ASSIGN_OR_RETURN(
        std::optional<Conversion> c,
        RunFirst(RulesFor(from, to, When::kBitsCarryOver), in, input, options));
    if (c) return std::move(*c);
  }
  return Rebuild(in, input, options);
}

std::vector<ConversionInfo> Conversions() {
  std::vector<ConversionInfo> list;
  for (const ConversionRule* r : engine::AllConversionRules()) {
    list.push_back({r->from, r->to, r->kind, r->note});
  }
  return list;
}

Result<std::unique_ptr<KeyStream>> OpenIndexKeys(const std::string& path,
                                                 const FormatCodec* filter_format) {
  const engine::Family* family = engine::FamilyOf(filter_format);
  if (!family || !family->keys.index_keys) {
    family = nullptr;
    for (const engine::Family* f : engine::Families()) {
      if (f->keys.index_keys) {
        family = f;
        break;
      }
    }
  }
  if (!family) return Status::InvalidArgument("--index: no format reads index files");
  return family->keys.index_keys(path, filter_format);
}

}  // namespace bloomcodec
