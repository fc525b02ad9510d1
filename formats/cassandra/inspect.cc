// What inspect, dump and undump of the eras before 1.2 share (the 0.6, legacy, 1.0 and 1.0 row
// filters: their own parts are in the era folders), and the sizing facts every era's inspect
// reports: which of Cassandra 1.0's getFilter calls could have sized a filter.
#include "cassandra/inspect.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/input_file.h"
#include "cassandra/descriptor.h"
#include "cassandra/index_db.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {
namespace {

// What K and the modulus say about how the filter was sized. getFilter(n, buckets) picks
// K = optKPerBuckets[bpe] and allocates n * bpe + 20 bits rounded up to whole words, so every bpe
// whose optimal K is the stored K is a candidate, and each implies n ~ (64 W - 20) / bpe.
// getFilter(n, fp) goes through computeBloomSpec, which may lower K below the optimum of its bpe
// (and, for fp >= 0.393, picks K = 2 with 1 bucket per element): its reachable (bpe, K) pairs
// are found by asking our reproduction of it at every fp threshold of the probability table.
Document Candidate(const std::vector<std::string>& overloads, int bpe, std::int32_t hash_count,
                   std::int64_t modulus) {
  Document c;
  c["buckets_per_element"] = bpe;
  c["overloads"] = overloads;
  c["sized_for_keys"] = std::max<std::int64_t>(0, (modulus - kExcessBits) / bpe);
  std::span<const double> probs = BloomProbabilities(bpe);
  c["promised_false_positive_rate"] =
      hash_count >= 0 && static_cast<std::size_t>(hash_count) < probs.size()
          ? JsonNumber(probs[static_cast<std::size_t>(hash_count)])
          : Document(nullptr);
  return c;
}

std::set<int> FpChanceBucketsFor(std::int32_t hash_count) {
  std::set<int> found;
  for (int bpe = 1; bpe <= kMaxBucketsPerElement; ++bpe) {
    std::span<const double> row = BloomProbabilities(bpe);
    for (std::size_t k = 1; k < row.size(); ++k) {
      for (double fp : {row[k], std::nextafter(row[k], 2.0)}) {
        // Any modest key count: only huge counts lower maxBucketsPerElement.
        Result<FilterSpec> spec = SizeForFpChance(1000, fp);
        if (spec.ok() && spec->hash_count == hash_count) found.insert(spec->buckets_per_element);
      }
    }
  }
  return found;
}

Document SizingFacts(std::int32_t hash_count, std::int64_t modulus, std::int32_t fixed_bpe) {
  Document sizing;
  std::map<int, std::vector<std::string>> by_bpe;  // bpe -> the getFilter overloads giving it
  for (int bpe = 1; bpe <= kMaxBucketsPerElement; ++bpe) {
    if (fixed_bpe != 0 && bpe != fixed_bpe) continue;
    if (OptimalHashCount(bpe) == hash_count) by_bpe[bpe].push_back("buckets");
  }
  if (fixed_bpe == 0) {
    for (int bpe : FpChanceBucketsFor(hash_count)) by_bpe[bpe].push_back("fp_chance");
  }
  Document candidates = Document::array();
  for (const auto& [bpe, overloads] : by_bpe) {
    candidates.push_back(Candidate(overloads, bpe, hash_count, modulus));
  }
  sizing["rule"] = fixed_bpe != 0 ? "getFilter(columns, " + std::to_string(fixed_bpe) + ")"
                                  : std::string(
                                        "getFilter(n, buckets) or getFilter(n, fp): "
                                        "bits = n * bpe + 20 rounded up to 64");
  // Without the sizing call at hand, one candidate is chosen only where that is what Cassandra
  // does by default: its SSTable writer calls getFilter(keys, 15) unless the column family sets
  // an fp chance. The fill estimate cannot choose: Cassandra sizes from an estimated key count,
  // so a filter may hold far fewer keys than it was sized for.
  auto default_it = std::find_if(candidates.begin(), candidates.end(), [](const Document& c) {
    return c["buckets_per_element"] == kDefaultBucketsPerElement;
  });
  if (candidates.size() == 1) {
    CopyCandidateUp(sizing, candidates[0]);
  } else if (candidates.empty()) {
    sizing["note"] = "no sizing of Cassandra 1.0 gives K = " + std::to_string(hash_count) +
                     ": not written by its getFilter";
  } else {
    sizing["note"] = SeveralCandidatesNote(hash_count, candidates.size());
    if (default_it != candidates.end() && fixed_bpe == 0) {
      CopyCandidateUp(sizing, *default_it);
      sizing["chosen_by"] = "the SSTable writer's default, getFilter(keys, 15)";
    }
  }
  sizing["candidates"] = std::move(candidates);
  return sizing;
}

}  // namespace

void AddSstableBefore12(Document& doc, std::string_view source) {
  if (source.ends_with(".gz")) source.remove_suffix(3);
  Result<Descriptor> d = ParseDescriptor(source);
  if (!d.ok()) return;
  Document sstable;
  if (!d->keyspace.empty()) sstable["keyspace"] = d->keyspace;
  sstable["column_family"] = d->column_family;
  sstable["version"] = d->version;
  sstable["generation"] = d->generation;
  sstable["component"] = d->component;
  sstable["filter_kind"] = std::string(Facts(d->era()).name);
  // Before e the partitioner decides what Index.db holds: told from the Index.db beside the
  // filter, when there is one (as verify tells it).
  if (Facts(d->era()).hash != KeyHash::kMurmur3 &&
      IndexKeyFormForVersion(d->version) != IndexKeyForm::kRaw && source.ends_with("Filter.db")) {
    const std::string index =
        std::string(source.substr(0, source.size() - std::string_view("Filter.db").size())) +
        "Index.db";
    if (Result<InputFile> in = InputFile::Open(index); in.ok()) {
      sstable["partitioner"] = DetectIndexKeyFormBeforeE(in->bytes()) == IndexKeyForm::kRaw
                                   ? "order-preserving"
                                   : "random";
      sstable["partitioner_from"] = index;
    }
  }
  doc["sstable"] = std::move(sstable);
}

Document FilterFields(std::string_view format, std::int32_t hash_count, std::int32_t word_count,
                      std::int64_t modulus, std::uint64_t bits_set, std::int32_t fixed_bpe) {
  Document doc;
  doc["format"] = std::string(format);
  doc["hash_count"] = hash_count;
  doc["word_count"] = word_count;
  doc["modulus"] = modulus;
  const std::uint64_t bits = static_cast<std::uint64_t>(std::max<std::int64_t>(0, modulus));
  const std::uint32_t k = static_cast<std::uint32_t>(std::max(0, hash_count));
  AddFillStatistics(doc, bits, bits_set, k);
  doc["sizing"] = SizingFacts(hash_count, modulus, fixed_bpe);
  return doc;
}

Result<ByteVector> WordsField(const Document& dump, std::string_view source,
                              std::int64_t& hash_count, std::int64_t& word_count) {
  BLOOMCODEC_ASSIGN_OR_RETURN(hash_count, DumpInt(dump, "hash_count", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(word_count, DumpInt(dump, "word_count", source));
  if (hash_count < INT32_MIN || hash_count > INT32_MAX) {
    return BadDumpField(source, "hash_count", "a 32-bit integer");
  }
  if (word_count <= 0 || word_count > INT32_MAX) {
    return BadDumpField(source, "word_count", "an integer from 1 to 2^31 - 1");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, DumpBase64(dump, "words_base64", source));
  if (words.size() != static_cast<std::uint64_t>(word_count) * 8) {
    return BadDumpField(source, "words_base64",
                        std::to_string(word_count * 8) + " bytes (8 per word), found " +
                            std::to_string(words.size()));
  }
  return words;
}

void PutWords(Document& doc, std::int32_t hash_count, std::int32_t word_count, ByteSpan words) {
  doc["hash_count"] = hash_count;
  doc["word_count"] = word_count;
  doc["words_base64"] = ToBase64(words);
}

std::optional<double> KeysAllowedBySizing(std::int32_t hash_count, std::int64_t modulus,
                                          std::int32_t fixed_bpe) {
  // The smallest buckets-per-element giving this K allows the most keys in these bits: the
  // loosest bound, so a filter sized by any of the candidate calls is never called overfilled.
  const Document sizing = SizingFacts(hash_count, modulus, fixed_bpe);
  std::optional<double> most;
  for (const Document& c : sizing["candidates"]) {
    const double n = c["sized_for_keys"].get<double>();
    if (!most || n > *most) most = n;
  }
  return most;
}

void CopyCandidateUp(Document& sizing, const Document& candidate) {
  for (const char* field :
       {"buckets_per_element", "sized_for_keys", "promised_false_positive_rate"}) {
    sizing[field] = candidate[field];
  }
}

std::string SeveralCandidatesNote(std::int32_t hash_count, std::size_t candidates) {
  return "K = " + std::to_string(hash_count) + " comes with " + std::to_string(candidates) +
         " buckets-per-element values: the key count it was sized for is one of the "
         "candidates'";
}

}  // namespace bloomcodec::cassandra
