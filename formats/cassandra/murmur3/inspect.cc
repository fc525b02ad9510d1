// inspect / dump / undump of the Murmur3 eras' Filter.db. Dumps carry the header and the bits
// exactly as stored (in the era's byte order), so Undump(Dump(file)) is the file byte for byte.
#include "cassandra/murmur3/inspect.h"

#include <climits>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/descriptor.h"
#include "cassandra/era_table.h"
#include "cassandra/index_db.h"
#include "cassandra/inspect.h"
#include "cassandra/statistics_db.h"
#include "codec/byte_writer.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {
namespace {

std::string_view SerializationName(const EraFacts& era) {
  return era.layout == Layout::kRawBytes ? "raw bytes (every word little-endian)"
                                         : "big-endian longs";
}

// What the Statistics.db beside the filter says of it (partitioner, fp chance) and, with the key
// count of the Index.db beside it, the rate the sizing promises for that many keys at that chance
// next to the rate the fill implies.
void AddStatistics(Document& doc, const Descriptor& d, std::string_view source) {
  const std::string_view filter = "Filter.db";
  if (!source.ends_with(filter) || !HasMetadataToc(d.version, d.sstable_format)) return;
  const std::string stem(source.substr(0, source.size() - filter.size()));
  Result<InputFile> in = InputFile::Open(stem + "Statistics.db");
  if (!in.ok()) return;
  Document stats;
  stats["path"] = stem + "Statistics.db";
  Result<ValidationMetadata> v =
      ReadValidationMetadata(in->bytes(), stem + "Statistics.db", d.version, d.sstable_format);
  if (!v.ok()) {
    stats["error"] = v.status().ToString();
    doc["statistics"] = std::move(stats);
    return;
  }
  stats["partitioner"] = v->partitioner;
  stats["bloom_filter_fp_chance"] = v->fp_chance;
  if (Result<InputFile> index = InputFile::Open(stem + "Index.db"); index.ok()) {
    IndexDb keys;
    const Status read = ReadIndexDbInto(index->bytes(), stem + "Index.db", IndexKeyForm::kRaw,
                                        IndexEntryFormForVersion(d.version), keys);
    if (read.ok()) {
      const auto n = static_cast<std::int64_t>(keys.keys.size());
      stats["index_keys"] = n;
      if (std::optional<double> promised = PromisedFpRate(n, v->fp_chance)) {
        stats["promised_fp_rate"] = *promised;
      }
    }
  }
  doc["statistics"] = std::move(stats);
}

void AddDescriptor(Document& doc, std::string_view source) {
  if (source.ends_with(".gz")) source.remove_suffix(3);
  Result<Descriptor> d = ParseDescriptor(source);
  if (!d.ok()) return;
  Document sstable;
  if (!d->keyspace.empty()) sstable["keyspace"] = d->keyspace;
  if (!d->column_family.empty()) sstable["column_family"] = d->column_family;
  sstable["version"] = d->version;
  if (!d->sstable_format.empty()) sstable["sstable_format"] = d->sstable_format;
  sstable["generation"] = d->generation_id;
  sstable["component"] = d->component;
  sstable["filter_kind"] = std::string(Facts(d->era()).name);
  // A trie-indexed sstable (BTI, ScyllaDB ms / mt) with its Partitions.db beside: where its keys
  // are and how many.
  if (bti::UsesTrieIndex(d->version, d->sstable_format) && source.ends_with(d->component)) {
    const std::string prefix(source.substr(0, source.size() - d->component.size()));
    std::error_code ec;
    if (std::filesystem::is_regular_file(prefix + "Partitions.db", ec)) {
      sstable["key_source"] = bti::DescribeTrieIndex(prefix, d->version, d->sstable_format);
    }
  }
  doc["sstable"] = std::move(sstable);
  AddStatistics(doc, *d, source);
}

// The buckets per element getFilter(n, fp) pairs with this K, found by asking our reproduction of
// it at every threshold of the probability table (and just above each).
std::set<int> BucketsFor(std::int32_t hash_count) {
  std::set<int> found;
  for (int bpe = 1; bpe <= kMaxBucketsPerElement; ++bpe) {
    std::span<const double> row = BloomProbabilities(bpe);
    for (std::size_t k = 1; k < row.size(); ++k) {
      for (double fp : {row[k], std::nextafter(row[k], 2.0)}) {
        Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(1000, fp);
        if (spec.ok() && !spec->always_present && spec->hash_count == hash_count) {
          found.insert(spec->buckets_per_element);
        }
      }
    }
  }
  return found;
}

Document SizingFacts(std::int32_t hash_count, std::int64_t capacity) {
  Document sizing;
  sizing["rule"] = "FilterFactory.getFilter(n, fp): bits = n * buckets + 20 rounded up to 64";
  Document candidates = Document::array();
  for (int bpe : BucketsFor(hash_count)) {
    Document c;
    c["buckets_per_element"] = bpe;
    c["sized_for_keys"] = std::max<std::int64_t>(0, (capacity - kExcessBits) / bpe);
    // fp >= 0.393 gives K = 2 with 1 bucket per element, a pair the table has no entry for
    // (row 1 ends at K = 1): nothing was promised.
    const std::span<const double> row = BloomProbabilities(bpe);
    c["promised_false_positive_rate"] = static_cast<std::size_t>(hash_count) < row.size()
                                            ? JsonNumber(row[static_cast<std::size_t>(hash_count)])
                                            : Document(nullptr);
    candidates.push_back(std::move(c));
  }
  if (candidates.size() == 1) {
    CopyCandidateUp(sizing, candidates[0]);
  } else if (candidates.empty()) {
    sizing["note"] = "no fp chance gives K = " + std::to_string(hash_count) +
                     ": not sized by Cassandra's FilterFactory";
  } else {
    sizing["note"] = SeveralCandidatesNote(hash_count, candidates.size());
    // Cassandra's default fp chances choose one: 0.01 (K 5, 10 buckets) for most tables, 0.1
    // (K 3, 5 buckets) for LeveledCompactionStrategy tables in 3.0+.
    for (const auto& [fp, name] : {std::pair{0.01, "0.01, the default bloom_filter_fp_chance"},
                                   std::pair{0.1, "0.1, the default for LCS tables (3.0+)"}}) {
      Result<Murmur3FilterSpec> d = SizeMurmur3Filter(1000, fp);
      if (!d.ok() || d->hash_count != hash_count) continue;
      for (const Document& c : candidates) {
        if (c["buckets_per_element"] != d->buckets_per_element) continue;
        CopyCandidateUp(sizing, c);
        sizing["chosen_by"] = std::string("fp chance ") + name;
      }
    }
  }
  sizing["candidates"] = std::move(candidates);
  return sizing;
}

}  // namespace

std::optional<double> KeysAllowedByMurmur3Sizing(std::int32_t hash_count, std::int64_t capacity) {
  std::optional<double> most;
  for (int bpe : BucketsFor(hash_count)) {
    const double n = static_cast<double>(std::max<std::int64_t>(0, (capacity - kExcessBits) / bpe));
    if (!most || n > *most) most = n;
  }
  return most;
}

Result<Document> InspectMurmur3Filter(ByteSpan file, std::string_view source, Era era) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, era));
  Document doc;
  const EraFacts& facts = Facts(era);
  doc["format"] = std::string(facts.name);
  doc["index_order"] =
      facts.order == IndexOrder::kOld ? "old (base h0, step h1)" : "new (base h1, step h0)";
  doc["serialization"] = std::string(SerializationName(facts));
  if (f.always_present()) {
    doc["always_present"] = true;
    doc["note"] =
        "a 0-byte Filter.db: Cassandra 5.0's always-present filter (fp chance 1.0); "
        "every key is reported present. The 4.0 / 4.1 deserializer expects an 8-byte header "
        "and reaches the end of this file";
    doc["file_bytes"] = file.size();
    doc["estimated_false_positive_rate"] = 1.0;
    AddDescriptor(doc, source);
    return doc;
  }
  doc["hash_count"] = f.signed_hash_count();
  doc["word_count"] = f.word_count();
  doc["capacity_bits"] = f.modulus();
  AddFillStatistics(doc, f.bit_count(), f.bits_set(), f.hash_count());
  AddFillProfile(doc, file, f.bits_bytes());
  if (f.signed_hash_count() > kIndexArrayLength) {
    doc["lookup_note"] =
        "K > 21: Cassandra's lookups of this filter throw "
        "ArrayIndexOutOfBoundsException";
  }
  doc["sizing"] = SizingFacts(f.signed_hash_count(), f.modulus());
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = f.trailing_bytes();
  AddDescriptor(doc, source);
  return doc;
}

Result<Document> DumpMurmur3Filter(ByteSpan file, std::string_view source, Era era) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, era));
  Document doc = DumpHead(Facts(era).name);
  if (f.always_present()) {
    doc["always_present"] = true;
    return doc;
  }
  doc["hash_count"] = f.signed_hash_count();
  doc["word_count"] = f.word_count();
  doc["serialization"] = std::string(SerializationName(Facts(era)));
  doc["bits_base64"] = ToBase64(f.bits_bytes());
  if (f.trailing_bytes() > 0)
    doc["trailing_base64"] = ToBase64(file.subspan(f.serialized().size()));
  return doc;
}

Result<ByteVector> UndumpMurmur3Filter(const Document& dump, std::string_view source, Era era) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, Facts(era).name, source));
  if (auto it = dump.find("always_present"); it != dump.end()) {
    if (!it->is_boolean()) return BadDumpField(source, "always_present", "true or false");
    if (it->get<bool>()) {
      if (Facts(era).layout != Layout::kRawBytes) {
        return BadDumpField(source, "always_present",
                            "false: only cassandra-4.0 (5.0) writes an always-present Filter.db");
      }
      return ByteVector();
    }
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t k, DumpInt(dump, "hash_count", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t w, DumpInt(dump, "word_count", source));
  if (k < 0 || k > INT32_MAX)
    return BadDumpField(source, "hash_count", "an integer from 0 to 2^31 - 1");
  if (w <= 0 || w > INT32_MAX)
    return BadDumpField(source, "word_count", "an integer from 1 to 2^31 - 1");
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector bits, DumpBase64(dump, "bits_base64", source));
  if (bits.size() != static_cast<std::uint64_t>(w) * 8) {
    return BadDumpField(source, "bits_base64",
                        std::to_string(w * 8) + " bytes (8 per word), found " +
                            std::to_string(bits.size()));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing,
                              DumpOptionalBase64(dump, "trailing_base64", source));
  ByteVector out;
  out.reserve(Murmur3Filter::kHeaderBytes + bits.size() + trailing.size());
  ByteWriter writer(out);
  writer.PutBigI32(static_cast<std::int32_t>(k));
  writer.PutBigI32(static_cast<std::int32_t>(w));
  out.insert(out.end(), bits.begin(), bits.end());
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

}  // namespace bloomcodec::cassandra
