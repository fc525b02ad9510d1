#include "cassandra/repair/rebuild.h"

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"

namespace bloomcodec::cassandra {
namespace {

// A filter allocated for the count, filled a chunk at a time.
class EraWriter {
 public:
  virtual ~EraWriter() = default;
  virtual void Add(std::span<const ByteSpan> keys) = 0;
  // Keys hashed with CassandraMurmur3 already: false for a filter of another hash.
  virtual bool AddHashes(std::span<const Murmur3Hash>) { return false; }
  virtual ByteVector Take() = 0;
  std::int32_t hash_count = 0;
  std::int64_t words = 0;
};

template <typename F>
class WordWriter final : public EraWriter {
 public:
  explicit WordWriter(F filter) : filter_(std::move(filter)) {
    hash_count = filter_.signed_hash_count();
    words = filter_.word_count();
  }
  void Add(std::span<const ByteSpan> keys) override { filter_.AddAll(keys); }
  bool AddHashes(std::span<const Murmur3Hash> hashes) override {
    if constexpr (std::is_same_v<F, Murmur3Filter>) {
      filter_.AddHashes(hashes);
      return true;
    }
    return false;
  }
  ByteVector Take() override { return std::move(filter_).TakeSerialized(); }

 private:
  F filter_;
};

// The java.util.BitSet filter (versions before f), which adds one key at a time.
class BitSetWriter final : public EraWriter {
 public:
  explicit BitSetWriter(LegacyFilter filter) : filter_(std::move(filter)) {
    hash_count = filter_.signed_hash_count();
    words = filter_.word_count();
  }
  void Add(std::span<const ByteSpan> keys) override {
    for (const ByteSpan& k : keys) filter_.Add(k);
  }
  ByteVector Take() override { return filter_.Serialize(); }

 private:
  LegacyFilter filter_;
};

std::string Number(double v) { return JavaDoubleToString(v); }

Result<std::unique_ptr<EraWriter>> BitSetFor(const LegacyFilterSpec& spec) {
  if (spec.nbits < 0) {
    return Status::Refused("NegativeArraySizeException: nbits < 0: " + std::to_string(spec.nbits));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Create(spec));
  return std::unique_ptr<EraWriter>(std::make_unique<BitSetWriter>(std::move(f)));
}

Result<std::unique_ptr<EraWriter>> V10For(std::int64_t n, const FilterSizing& s) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec,
                              s.fp_chance ? SizeForFpChance(n, *s.fp_chance)
                                          : SizeForBucketsPerElement(n, *s.buckets_per_element));
  const std::int64_t wanted = TrueRequestedBits(n, spec.buckets_per_element);
  if (wanted > kMaxBits || wanted < 0) {
    // Java would truncate the word count to an int and write a filter of the wrong size.
    return Status::Refused("getFilter(" + std::to_string(n) + ") needs " + std::to_string(wanted) +
                           " bits, more than a Filter.db holds");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Create(spec));
  return std::unique_ptr<EraWriter>(std::make_unique<WordWriter<V10Filter>>(std::move(f)));
}

// The era's writer for n keys; nullptr with `always_present` for 5.0's 0-byte filter.
Result<std::unique_ptr<EraWriter>> WriterFor(Era era, std::int64_t n, const FilterSizing& s,
                                             bool& always_present) {
  always_present = false;
  const EraFacts& facts = Facts(era);
  if (s.fp_chance.has_value() == s.buckets_per_element.has_value()) {
    return Status::InvalidArgument("exactly one of an fp chance and buckets per element");
  }
  switch (facts.hash) {
    case KeyHash::kMurmur2x32JavaString: {
      Result<LegacyFilterSpec> spec =
          s.fp_chance ? StringFilterSizeForFpChance(n, *s.fp_chance)
                      : StringFilterSizeForBucketsPerElement(n, *s.buckets_per_element);
      if (!spec.ok()) return spec.status();
      return BitSetFor(*spec);
    }
    case KeyHash::kMurmur2x32: {
      Result<LegacyFilterSpec> spec =
          s.fp_chance ? LegacySizeForFpChance(n, *s.fp_chance)
                      : LegacySizeForBucketsPerElement(n, *s.buckets_per_element);
      if (!spec.ok()) return spec.status();
      return BitSetFor(*spec);
    }
    case KeyHash::kMurmur2x64:
      if (facts.component != "Filter.db") {
        return Status::InvalidArgument(std::string(facts.name) + " is not an sstable's Filter.db");
      }
      return V10For(n, s);
    case KeyHash::kMurmur3: break;
  }
  if (!s.fp_chance) {
    return Status::InvalidArgument(
        "Cassandra 1.2 - 5.0 size a filter by its fp chance (FilterFactory.getFilter(n, fp)), "
        "not by buckets per element");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec, SizeMurmur3Filter(n, *s.fp_chance));
  if (spec.always_present) {
    if (facts.layout == Layout::kRawBytes) {
      always_present = true;
      return std::unique_ptr<EraWriter>();
    }
    return Status::Refused("fp chance 1.0: Cassandra writes no Filter.db for " +
                           std::string(facts.name) + " sstables (the always-present filter)");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f,
                              Murmur3Filter::Create(spec.hash_count, spec.word_count, era));
  return std::unique_ptr<EraWriter>(std::make_unique<WordWriter<Murmur3Filter>>(std::move(f)));
}

Status Recounted(const KeyStream& keys, std::uint64_t first, std::uint64_t second) {
  return Status::IoError(keys.source(), "gave " + std::to_string(first) + " keys, then " +
                                            std::to_string(second) +
                                            ": it changed while it was read");
}

}  // namespace

FilterSizing GivenFpChance(double fp_chance) {
  return {fp_chance, std::nullopt, SizingSource::kGiven, "fp chance " + Number(fp_chance)};
}

FilterSizing GivenBucketsPerElement(std::int32_t buckets) {
  return {std::nullopt, buckets, SizingSource::kGiven,
          std::to_string(buckets) + " buckets per element"};
}

FilterSizing WriterDefaultSizing(const Descriptor& d) {
  FilterSizing s;
  s.source = SizingSource::kWriterDefault;
  if (d.era() == Era::kV12) {
    s.fp_chance = 0.01;
    s.basis =
        "Cassandra 1.2's default bloom_filter_fp_chance 0.01 (CFMetaData.getBloomFilterFpChance "
        "from 1.2.1; 0.1 for LeveledCompactionStrategy tables); versions before ja record no fp "
        "chance in Statistics.db";
    return s;
  }
  s.buckets_per_element = kDefaultBucketsPerElement;
  s.basis =
      "the writer's default of versions before ia, BloomFilter.getFilter(keyCount, 15); a "
      "Cassandra 1.1 table with a bloom_filter_fp_chance was written at that chance, which "
      "the sstable does not record";
  return s;
}

namespace {

// The filter of `count` keys: nullopt when the stream gives another number of keys than
// `count` (`added`: how many it gave, up to one past `count`).
Result<std::optional<RebuiltFilter>> BuildForCount(const KeyStream& keys, Era era,
                                                   const FilterSizing& sizing, std::uint64_t count,
                                                   std::uint64_t& added) {
  if (count > static_cast<std::uint64_t>(INT64_MAX)) {
    return Status::Refused(keys.source() + ": too many keys");
  }
  RebuiltFilter out;
  out.keys = count;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      std::unique_ptr<EraWriter> writer,
      WriterFor(era, static_cast<std::int64_t>(count), sizing, out.always_present));
  added = 0;
  bool over = false;
  const Status pass = keys.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    added += chunk.size();
    if (added > count) {
      over = true;
      return Status::Internal("more keys than counted");  // ends the pass: not this count
    }
    if (writer) writer->Add(chunk);
    return Status();
  });
  if (over || (pass.ok() && added != count)) return std::optional<RebuiltFilter>();
  BLOOMCODEC_RETURN_IF_ERROR(pass);
  if (writer) {
    out.hash_count = writer->hash_count;
    out.words = writer->words;
    out.bytes = writer->Take();
  }
  return std::optional<RebuiltFilter>(std::move(out));
}

}  // namespace

Result<RebuiltFilter> RebuildFilter(const KeyStream& keys, Era era, const FilterSizing& sizing,
                                    std::optional<std::uint64_t> expected_keys) {
  std::uint64_t added = 0;
  if (expected_keys) {
    // Verify's count saves the counting pass; a stream that gives another number is counted.
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<RebuiltFilter> built,
                                BuildForCount(keys, era, sizing, *expected_keys, added));
    if (built) return std::move(*built);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t count, CountKeys(keys));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<RebuiltFilter> built,
                              BuildForCount(keys, era, sizing, count, added));
  if (!built) return Recounted(keys, count, added);
  return std::move(*built);
}

Result<std::optional<RebuiltFilter>> RebuildFilterFromHashes(
    std::span<const std::vector<Murmur3Hash>> hashes, Era era, const FilterSizing& sizing) {
  if (Facts(era).hash != KeyHash::kMurmur3) return std::optional<RebuiltFilter>();
  std::uint64_t count = 0;
  for (const std::vector<Murmur3Hash>& chunk : hashes) count += chunk.size();
  if (count > static_cast<std::uint64_t>(INT64_MAX)) {
    return Status::Refused("too many keys");
  }
  RebuiltFilter out;
  out.keys = count;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      std::unique_ptr<EraWriter> writer,
      WriterFor(era, static_cast<std::int64_t>(count), sizing, out.always_present));
  if (writer) {
    for (const std::vector<Murmur3Hash>& chunk : hashes) {
      if (!writer->AddHashes(chunk)) return std::optional<RebuiltFilter>();
    }
    out.hash_count = writer->hash_count;
    out.words = writer->words;
    out.bytes = writer->Take();
  }
  // Every hash asked of the filter as Cassandra's reader asks it (CheckEveryKeyPresent's
  // question, from the hashes).
  if (out.bytes.empty()) return std::optional<RebuiltFilter>(std::move(out));
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(out.bytes, "new filter", era));
  BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups("new filter"));
  std::vector<std::uint8_t> answers;
  std::uint64_t at = 0;
  for (const std::vector<Murmur3Hash>& chunk : hashes) {
    answers.resize(chunk.size());
    f.MayContainHashedBatch(chunk, answers);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (answers[i] == 0) {
        return Status::Internal("the rebuilt filter answers key hash " +
                                std::to_string(at + i + 1) + " of " + std::to_string(count) +
                                " absent");
      }
    }
    at += chunk.size();
  }
  return std::optional<RebuiltFilter>(std::move(out));
}

Status CheckEveryKeyPresent(const KeyStream& keys, Era era, ByteSpan filter) {
  std::unique_ptr<Filter> parsed;
  const KeyHash hash = Facts(era).hash;
  if (hash == KeyHash::kMurmur3) {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(filter, "new filter", era));
    if (f.always_present()) return Status();
    parsed = std::make_unique<Murmur3Filter>(std::move(f));
  } else if (hash == KeyHash::kMurmur2x64) {
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Parse(filter, "new filter"));
    parsed = std::make_unique<V10Filter>(std::move(f));
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Parse(filter, "new filter"));
    parsed = std::make_unique<LegacyFilter>(std::move(f));
  }
  std::vector<std::uint8_t> answers;
  std::uint64_t at = 0;
  return keys.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    answers.resize(chunk.size());
    parsed->MayContainBatch(chunk, answers);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (answers[i] == 0) {
        return Status::Internal("the rebuilt filter answers key " + std::to_string(at + i + 1) +
                                " of " + keys.source() + " absent");
      }
    }
    at += chunk.size();
    return Status();
  });
}

}  // namespace bloomcodec::cassandra
