// inspect / dump / undump of one RocksDB full filter, and the policy facts behind inspect and
// verify (which bits_per_key writes a geometry, how many keys that size was meant for).
#include "rocksdb/inspect.h"

#include <cmath>
#include <string>

#include "filter_sizing.h"
#include "inspect_support.h"

namespace bloomcodec::rocksdb {

namespace {

// The millibits range (lo, hi] of bits_per_key 1..100 whose FastLocalBloom probe count is k.
struct Range {
  int lo = 0;  // smallest value giving k
  int hi = 0;  // largest value giving k
};

std::optional<Range> FastLocalMillibitsFor(std::uint32_t k) {
  std::optional<Range> r;
  for (int m = 1000; m <= 100000; ++m) {
    if (FastLocalProbesFor(m) != static_cast<int>(k)) continue;
    if (!r) r = Range{m, m};
    r->hi = m;
  }
  return r;
}

std::optional<Range> LegacyBitsFor(std::uint32_t k) {
  std::optional<Range> r;
  for (int b = 1; b <= 100; ++b) {
    if (LegacyProbesFor(b) != static_cast<int>(k)) continue;
    if (!r) r = Range{b, b};
    r->hi = b;
  }
  return r;
}

}  // namespace

std::optional<Document> PolicyFacts(const FullFilterReader& f) {
  Document facts;
  const std::uint64_t payload = f.payload().size();
  if (f.kind() == FullFilterKind::kFastLocalBloom) {
    const auto r = FastLocalMillibitsFor(f.num_probes());
    if (!r) {
      facts["note"] =
          "no bits_per_key from 1 to 100 gives num_probes " + std::to_string(f.num_probes());
      return facts;
    }
    // Size = ceil(n * millibits / 8000) rounded up to 64 bytes: n * m / 8000 in (P - 64, P].
    facts["bits_per_key_min"] = r->lo / 1000.0;
    facts["bits_per_key_max"] = r->hi / 1000.0;
    facts["sized_for_keys_min"] = payload <= 64 ? 0 : (payload - 64) * 8000 / r->hi + 1;
    facts["sized_for_keys_max"] = payload * 8000 / r->lo;
    return facts;
  }
  if (f.kind() == FullFilterKind::kLegacyBloom) {
    const auto r = LegacyBitsFor(f.num_probes());
    if (!r) {
      facts["note"] =
          "no whole bits_per_key from 1 to 100 gives num_probes " + std::to_string(f.num_probes());
      return facts;
    }
    // num_lines = ceil(n * b / 512), made odd: n * b in ((L - 2) * 512, L * 512].
    const std::uint64_t lines = f.num_lines();
    facts["bits_per_key_min"] = r->lo;
    facts["bits_per_key_max"] = r->hi;
    facts["sized_for_keys_min"] = lines <= 2 ? 1 : (lines - 2) * 512 / r->hi + 1;
    facts["sized_for_keys_max"] = lines * 512 / r->lo;
    return facts;
  }
  if (f.kind() == FullFilterKind::kRibbon) {
    const std::uint32_t slots = f.ribbon_num_blocks() * 128;
    // Slots are rounded up to whole 128-slot blocks from RocksDB's sizing of n keys.
    facts["sized_for_keys_min"] = RibbonKeysForSlots(slots - 128) + 1;
    facts["sized_for_keys_max"] = RibbonKeysForSlots(slots);
    return facts;
  }
  return std::nullopt;
}

std::optional<double> KeysAllowedByPolicy(const FullFilterReader& f) {
  const std::optional<Document> facts = PolicyFacts(f);
  if (!facts || !facts->contains("sized_for_keys_max")) return std::nullopt;
  return (*facts)["sized_for_keys_max"].get<double>();
}

double RibbonExpectedFpRate(const FullFilterReader& f) {
  const std::uint32_t columns = f.ribbon_upper_num_columns();
  if (columns == 0) return 1.0;
  const double num_starts = f.ribbon_num_blocks() * 128.0 - 127.0;
  const double lower_portion = f.ribbon_upper_start_block() * 128.0 / num_starts;
  return lower_portion * std::pow(0.5, columns - 1) +
         (1.0 - lower_portion) * std::pow(0.5, columns);
}

std::string_view FormatNameOf(FilterEncoding encoding) {
  switch (encoding) {
    case FilterEncoding::kLegacyBloom: return "rocksdb-bloom-legacy";
    case FilterEncoding::kFastLocalBloom: return "rocksdb-bloom";
    case FilterEncoding::kRibbon: return "rocksdb-ribbon";
  }
  return "rocksdb-bloom";
}

FullFilterKind KindOf(FilterEncoding encoding) {
  switch (encoding) {
    case FilterEncoding::kLegacyBloom: return FullFilterKind::kLegacyBloom;
    case FilterEncoding::kFastLocalBloom: return FullFilterKind::kFastLocalBloom;
    case FilterEncoding::kRibbon: return FullFilterKind::kRibbon;
  }
  return FullFilterKind::kFastLocalBloom;
}

Result<Document> InspectFullFilter(ByteSpan file, std::string_view source, FilterEncoding named) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f, FullFilterReader::Parse(file, source));
  Document doc;
  doc["format"] = std::string(FormatNameOf(named));
  const Document described = f.Describe();
  for (auto it = described.begin(); it != described.end(); ++it) doc[it.key()] = it.value();
  if (f.kind() != KindOf(named)) {
    // RocksDB's reader goes by the trailer, whatever the policy: so do probe and verify.
    std::string note = "the trailer says " + std::string(FullFilterKindName(f.kind())) + ", not " +
                       std::string(FullFilterKindName(KindOf(named))) +
                       "; RocksDB (and probe) read it as the trailer says";
    if (named == FilterEncoding::kRibbon && f.kind() == FullFilterKind::kFastLocalBloom) {
      note += " (a Ribbon policy writes FastLocalBloom for small key counts)";
    }
    if (named == FilterEncoding::kRibbon && f.kind() == FullFilterKind::kEmpty) {
      note += " (a Ribbon policy writes 0 bytes for 0 keys)";
    }
    doc["kind_note"] = note;
  }
  switch (f.kind()) {
    case FullFilterKind::kEmpty:
      doc["reader"] = "5 bytes or fewer: every key answers absent";
      doc["estimated_false_positive_rate"] = 0;
      break;
    case FullFilterKind::kAlwaysMatch:
      doc["reader"] = "every key answers present";
      doc["estimated_false_positive_rate"] = 1;
      break;
    case FullFilterKind::kLegacyBloom:
    case FullFilterKind::kFastLocalBloom:
      AddFillStatistics(doc, f.bit_count(), f.bits_set(), f.num_probes());
      AddFillProfile(doc, file, f.payload());
      doc["policy"] = *PolicyFacts(f);
      break;
    case FullFilterKind::kRibbon: {
      const std::uint64_t bits = f.bit_count();
      doc["bits"] = bits;
      doc["bits_set"] = f.bits_set();
      doc["fill_ratio"] = JsonNumber(bits == 0 ? 0.0 : static_cast<double>(f.bits_set()) / bits);
      // A Ribbon solution is about half ones whatever it holds: its size, not its fill, tells
      // the key count (RocksDB sizes slots from keys).
      const Document facts = *PolicyFacts(f);
      doc["estimator"] = "ribbon-slots";
      doc["estimated_keys"] = facts["sized_for_keys_max"];
      doc["estimated_false_positive_rate"] = JsonNumber(RibbonExpectedFpRate(f));
      // A zeroed or overwritten region still shows against the even half of ones.
      AddFillProfile(doc, file, f.payload());
      doc["policy"] = facts;
      break;
    }
    case FullFilterKind::kSpeedbPairedBloom: break;  // only inside a table naming Speedb's policy
  }
  return doc;
}

Result<Document> DumpFullFilter(ByteSpan file, std::string_view source, FilterEncoding named) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FullFilterReader f, FullFilterReader::Parse(file, source));
  Document doc = DumpHead(FormatNameOf(named));
  doc["filter_bytes"] = file.size();
  doc["kind"] = std::string(FullFilterKindName(f.kind()));
  const std::size_t split = file.size() <= kMetadataBytes ? 0 : file.size() - kMetadataBytes;
  doc["payload_base64"] = ToBase64(file.first(split));
  doc["trailer_hex"] = ToHex(file.subspan(split));
  // Informational: the trailer decoded (undump uses trailer_hex when present).
  switch (f.kind()) {
    case FullFilterKind::kLegacyBloom:
      doc["num_probes"] = f.num_probes();
      doc["num_lines"] = f.num_lines();
      break;
    case FullFilterKind::kFastLocalBloom: doc["num_probes"] = f.num_probes(); break;
    case FullFilterKind::kRibbon:
      doc["seed"] = f.ribbon_seed();
      doc["num_blocks"] = f.ribbon_num_blocks();
      break;
    default: break;
  }
  return doc;
}

Result<ByteVector> UndumpFullFilter(const Document& dump, std::string_view source,
                                    FilterEncoding named) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, FormatNameOf(named), source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, DumpBase64(dump, "payload_base64", source));
  ByteVector trailer;
  if (dump.contains("trailer_hex")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::string hex, DumpString(dump, "trailer_hex", source));
    if (!FromHex(hex, trailer) || trailer.size() > kMetadataBytes ||
        (!out.empty() && trailer.size() != kMetadataBytes)) {
      return BadDumpField(source, "trailer_hex",
                          "hex of the 5-byte trailer (up to 5 bytes when the payload is empty)");
    }
  } else {
    // Composed from the decoded fields, for hand-written dumps.
    BLOOMCODEC_ASSIGN_OR_RETURN(std::string kind, DumpString(dump, "kind", source));
    auto field = [&](std::string_view name, std::int64_t max) -> Result<std::int64_t> {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t v, DumpInt(dump, name, source));
      if (v < 0 || v > max) {
        return BadDumpField(source, name, "an integer from 0 to " + std::to_string(max));
      }
      return v;
    };
    if (kind == "legacy_bloom") {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t k, field("num_probes", 127));
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t lines, field("num_lines", 0xFFFFFFFF));
      trailer.push_back(static_cast<std::uint8_t>(k));
      for (int i = 0; i < 4; ++i) trailer.push_back(static_cast<std::uint8_t>(lines >> (8 * i)));
    } else if (kind == "fast_local_bloom") {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t k, field("num_probes", 30));
      trailer = {0xFF, 0, static_cast<std::uint8_t>(k), 0, 0};
    } else if (kind == "ribbon") {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t seed, field("seed", 255));
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t blocks, field("num_blocks", 0xFFFFFF));
      trailer = {0xFE, static_cast<std::uint8_t>(seed), static_cast<std::uint8_t>(blocks),
                 static_cast<std::uint8_t>(blocks >> 8), static_cast<std::uint8_t>(blocks >> 16)};
    } else {
      return BadDumpField(source, "trailer_hex",
                          "present (or kind legacy_bloom, fast_local_bloom or ribbon with its "
                          "fields)");
    }
  }
  out.insert(out.end(), trailer.begin(), trailer.end());
  if (dump.contains("filter_bytes")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t n, DumpInt(dump, "filter_bytes", source));
    if (n != static_cast<std::int64_t>(out.size())) {
      return BadDumpField(source, "filter_bytes",
                          "the payload and trailer length, " + std::to_string(out.size()));
    }
  }
  return out;
}

}  // namespace bloomcodec::rocksdb
