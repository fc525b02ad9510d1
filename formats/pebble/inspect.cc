// inspect / dump / undump of Pebble's Bloom and binary fuse filters, and the policy facts behind
// inspect and verify (which bits per key write a Bloom trailer, how many keys a size was meant
// for).
#include "pebble/inspect.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/byte_writer.h"
#include "inspect_support.h"

namespace bloomcodec::pebble {

namespace {

// The adaptive policy never chooses more (MaxBitsPerKey's ceiling); plain policies of more bits
// per key exist but make no sense for a table.
constexpr std::uint32_t kMaxBitsPerKey = 512;

Document BloomEraFacts(const BloomReader& f, BloomProbes era) {
  Document facts;
  std::uint32_t lo = 0, hi = 0;
  for (std::uint32_t b = 1; b <= kMaxBitsPerKey; ++b) {
    if (BloomProbeCount(b, era) != f.num_probes()) continue;
    if (lo == 0) lo = b;
    hi = b;
  }
  if (lo == 0) {
    facts["note"] =
        "no bits per key from 1 to 512 gives num_probes " + std::to_string(f.num_probes());
    return facts;
  }
  // num_lines = ceil(n * b / 512) | 1: n * b in ((L - 2) * 512, L * 512].
  const std::uint64_t lines = f.num_lines();
  facts["bits_per_key_min"] = lo;
  facts["bits_per_key_max"] = hi;
  facts["sized_for_keys_min"] = lines <= 2 ? 1 : (lines - 2) * 512 / hi + 1;
  facts["sized_for_keys_max"] = lines * 512 / lo;
  return facts;
}

std::string TrailerHex(ByteSpan file, std::size_t trailer) {
  return ToHex(file.subspan(file.size() <= trailer ? 0 : file.size() - trailer));
}

// A dump's head, payload and trailer: the trailer's bytes for the decoded fields dump adds
// (informational: undump uses trailer_hex), or null when the file is no longer than a trailer.
const std::uint8_t* DumpPayloadAndTrailer(Document& doc, std::string_view format, ByteSpan file,
                                          std::size_t trailer_bytes) {
  doc = DumpHead(format);
  doc["filter_bytes"] = file.size();
  const std::size_t split = file.size() <= trailer_bytes ? 0 : file.size() - trailer_bytes;
  doc["payload_base64"] = ToBase64(file.first(split));
  doc["trailer_hex"] = ToHex(file.subspan(split));
  return split == 0 ? nullptr : file.data() + split;
}

// The trailer of a dump: trailer_hex when present, else composed from the decoded fields by
// `compose` (for hand-written dumps).
template <typename Compose>
Result<ByteVector> UndumpFilter(const Document& dump, std::string_view source,
                                std::string_view format, std::size_t trailer_bytes,
                                Compose compose) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, format, source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, DumpBase64(dump, "payload_base64", source));
  ByteVector trailer;
  if (dump.contains("trailer_hex")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::string hex, DumpString(dump, "trailer_hex", source));
    if (!FromHex(hex, trailer) || trailer.size() > trailer_bytes ||
        (!out.empty() && trailer.size() != trailer_bytes)) {
      return BadDumpField(source, "trailer_hex",
                          "hex of the " + std::to_string(trailer_bytes) + "-byte trailer (up to " +
                              std::to_string(trailer_bytes) + " bytes when the payload is empty)");
    }
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(trailer, compose());
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

Result<std::uint64_t> DumpField(const Document& dump, std::string_view name, std::uint64_t max,
                                std::string_view source) {
  auto it = dump.find(std::string(name));
  if (it == dump.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > max) {
    return BadDumpField(source, name, "an integer from 0 to " + std::to_string(max));
  }
  return it->get<std::uint64_t>();
}

}  // namespace

// ----- Bloom -----

Document BloomPolicyFacts(const BloomReader& f) {
  Document facts;
  facts["rounded_probes"] = BloomEraFacts(f, BloomProbes::kRounded);
  facts["table_probes"] = BloomEraFacts(f, BloomProbes::kTable);
  facts["note"] =
      "rounded probes: Pebble before 2025-12-08 (v1, v2, go-ethereum); the probe table: since "
      "(CockroachDB 26.1). The adaptive policy (CockroachDB 26.2) lowers the bits per key to fit "
      "its size limit, so a filter smaller than its level's target is not undersized";
  return facts;
}

Result<Document> InspectBloom(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomReader f, BloomReader::Parse(file, source));
  Document doc;
  doc["format"] = std::string(kBloomFormatName);
  doc["family"] = std::string(kBloomFamily);
  doc["filter_bytes"] = file.size();
  if (f.empty()) {
    doc["reader"] = "5 bytes or fewer: every key answers absent";
    doc["note"] =
        "Pebble before CockroachDB 26.2 writes a 0-byte filter for a table without point keys; "
        "since, it writes none";
    doc["estimated_false_positive_rate"] = 0;
    return doc;
  }
  doc["payload_bytes"] = file.size() - kBloomTrailerBytes;
  doc["trailer_hex"] = TrailerHex(file, kBloomTrailerBytes);
  doc["num_probes"] = f.num_probes();
  doc["num_lines"] = f.num_lines();
  doc["line_bytes"] = 64;
  if (f.unused_tail_bytes() != 0) {
    doc["unused_tail_bytes"] = f.unused_tail_bytes();
    doc["unused_tail_note"] =
        "the payload is longer than num_lines * 64 bytes by less than a byte per line: Pebble's "
        "reader accepts it and never reads those bytes; no Pebble writes this";
  }
  doc["hash"] =
      "LevelDB's 32-bit hash, seed 0xbc9f1d34, tail bytes sign-extended (Pebble since "
      "2020-04-17; before, unsigned: told apart by a table's keys)";
  if (f.num_probes() == 0) doc["reader"] = "0 probes: every key answers present";
  AddFillStatistics(doc, f.bit_count(), f.bits_set(), f.num_probes());
  AddFillProfile(doc, file, f.lines());
  doc["policy"] = BloomPolicyFacts(f);
  return doc;
}

Document DumpBloom(ByteSpan file) {
  Document doc;
  if (const std::uint8_t* t =
          DumpPayloadAndTrailer(doc, kBloomFormatName, file, kBloomTrailerBytes)) {
    doc["num_probes"] = t[0];
    doc["num_lines"] = std::uint32_t{t[1]} | (std::uint32_t{t[2]} << 8) |
                       (std::uint32_t{t[3]} << 16) | (std::uint32_t{t[4]} << 24);
  }
  return doc;
}

Result<ByteVector> UndumpBloom(const Document& dump, std::string_view source) {
  return UndumpFilter(
      dump, source, kBloomFormatName, kBloomTrailerBytes, [&]() -> Result<ByteVector> {
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t k, DumpField(dump, "num_probes", 255, source));
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t lines,
                                    DumpField(dump, "num_lines", 0xFFFFFFFF, source));
        ByteVector t{static_cast<std::uint8_t>(k)};
        ByteWriter(t).PutLittleU32(static_cast<std::uint32_t>(lines));
        return t;
      });
}

// ----- Binary fuse -----

Document BinaryFusePolicyFacts(const BinaryFuseReader& f) {
  Document facts;
  facts["fingerprint_bits"] = f.fingerprint_bits();
  facts["expected_false_positive_rate"] = f.expected_fp_rate();
  const std::vector<BinaryFuseKeyRange> ranges = BinaryFuseKeyCapacity(f.geometry());
  if (ranges.empty()) {
    facts["note"] = "no key count from 1 to 10,000,000 gives this segment length and count";
    return facts;
  }
  std::uint64_t lo = ranges[0].min, hi = ranges[0].max;
  Document list = Document::array();
  for (const BinaryFuseKeyRange& r : ranges) {
    lo = std::min(lo, r.min);
    hi = std::max(hi, r.max);
    list.push_back({{"min", r.min},
                    {"max", r.max},
                    {"segments", r.halved ? "halved by an attempt 2, 6, 10, ..." : "as sized"}});
  }
  facts["sized_for_keys_min"] = lo;
  facts["sized_for_keys_max"] = hi;
  if (ranges.size() > 1) facts["sized_for_keys_ranges"] = list;
  return facts;
}

Result<Document> InspectBinaryFuse(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(BinaryFuseReader f, BinaryFuseReader::Parse(file, source));
  Document doc;
  doc["format"] = std::string(kBinaryFuseFormatName);
  doc["family"] = std::string(kBinaryFuseFamily);
  doc["filter_bytes"] = file.size();
  if (f.empty()) {
    doc["reader"] = "14 bytes or fewer: every key answers absent";
    doc["estimated_false_positive_rate"] = 0;
    return doc;
  }
  const BinaryFuseGeometry g = f.geometry();
  doc["payload_bytes"] = f.fingerprints().size();
  doc["trailer_hex"] = TrailerHex(file, kBinaryFuseTrailerBytes);
  doc["seed"] = f.seed();
  doc["segment_count"] = g.segment_count;
  doc["segment_length"] = g.segment_length;
  doc["num_segments"] = std::uint64_t{g.segment_count} + 2;
  doc["num_slots"] = f.entries();
  doc["fingerprint_bits"] = f.fingerprint_bits();
  doc["expected_payload_bytes"] = f.expected_fingerprint_bytes();
  if (f.expected_fingerprint_bytes() != f.fingerprints().size()) {
    doc["payload_note"] =
        "not the size Pebble writes for this geometry; Pebble's reader reads it all the same";
  }
  doc["hash"] = "XXH3-64, seed 0";
  // Like a Ribbon solution, the fingerprints are about half ones whatever they hold: the
  // geometry, not the fill, tells the key count.
  const std::uint64_t bits = f.bit_count();
  doc["bits"] = bits;
  doc["bits_set"] = f.bits_set();
  doc["fill_ratio"] = JsonNumber(static_cast<double>(f.bits_set()) / static_cast<double>(bits));
  const Document facts = BinaryFusePolicyFacts(f);
  doc["estimator"] = "binary-fuse-geometry";
  doc["estimated_keys"] =
      facts.contains("sized_for_keys_max") ? facts["sized_for_keys_max"] : Document(nullptr);
  doc["estimated_false_positive_rate"] = JsonNumber(f.expected_fp_rate());
  doc["policy"] = facts;
  return doc;
}

Document DumpBinaryFuse(ByteSpan file) {
  Document doc;
  if (const std::uint8_t* t =
          DumpPayloadAndTrailer(doc, kBinaryFuseFormatName, file, kBinaryFuseTrailerBytes)) {
    std::uint64_t seed = 0;
    for (int i = 7; i >= 0; --i) seed = (seed << 8) | t[i];
    doc["seed"] = seed;
    doc["segment_count"] = std::uint32_t{t[8]} | (std::uint32_t{t[9]} << 8) |
                           (std::uint32_t{t[10]} << 16) | (std::uint32_t{t[11]} << 24);
    doc["segment_length_shift"] = t[12];
    doc["fingerprint_bits"] = t[13];
  }
  return doc;
}

Result<ByteVector> UndumpBinaryFuse(const Document& dump, std::string_view source) {
  return UndumpFilter(
      dump, source, kBinaryFuseFormatName, kBinaryFuseTrailerBytes, [&]() -> Result<ByteVector> {
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t seed,
                                    DumpField(dump, "seed", ~std::uint64_t{0}, source));
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t count,
                                    DumpField(dump, "segment_count", 0xFFFFFFFF, source));
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t shift,
                                    DumpField(dump, "segment_length_shift", 255, source));
        BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t bits,
                                    DumpField(dump, "fingerprint_bits", 255, source));
        ByteVector t;
        ByteWriter(t).PutLittleU64(seed);
        ByteWriter(t).PutLittleU32(static_cast<std::uint32_t>(count));
        t.push_back(static_cast<std::uint8_t>(shift));
        t.push_back(static_cast<std::uint8_t>(bits));
        return t;
      });
}

}  // namespace bloomcodec::pebble
