// What the codecs of Cassandra's eras share (format_codecs.h); each era's codec is in its
// folder's format_codecs.cc, and the era table (era_table.h) makes them.
#include "cassandra/format_codecs.h"

#include <climits>
#include <string>

#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {

bool ClaimsEra(std::string_view path, Era era) {
  Result<Descriptor> d = ParseDescriptor(path);
  return d.ok() && d->component == "Filter.db" && d->era() == era;
}
std::int64_t ElementCount(std::uint64_t keys, const FilterParams& params) {
  if (params.expected_keys) return *params.expected_keys;
  return static_cast<std::int64_t>(keys);
}

Status CheckOverload(const FilterParams& params) {
  if (params.bits_per_key) {
    return Status::InvalidArgument(
        "Cassandra filters take --fp-chance P or --buckets-per-element N, not --bits-per-key");
  }
  if (params.fp_chance.has_value() == params.buckets_per_element.has_value()) {
    return Status::InvalidArgument(
        "give exactly one of --fp-chance P or --buckets-per-element N (Cassandra's two getFilter "
        "overloads; its SSTable writer uses --buckets-per-element 15)");
  }
  if (params.buckets_per_element &&
      (*params.buckets_per_element < INT32_MIN || *params.buckets_per_element > INT32_MAX)) {
    return Status::InvalidArgument("--buckets-per-element must fit a Java int");
  }
  return {};
}

std::int64_t TrueRequestedBits(std::int64_t n, std::int32_t bpe) {
  if (n < 0 || bpe < 0) return -1;
  if (bpe > 0 && n > (INT64_MAX - kExcessBits) / bpe) return INT64_MAX;
  return n * bpe + kExcessBits;
}

Result<SizeInfo> V10SizeInfo(std::int64_t n, const FilterSpec& spec) {
  if (spec.word_count < 0) {
    // The OpenBitSet constructor allocates the (truncated, negative) word count.
    return Status::Refused("NegativeArraySizeException: " + std::to_string(spec.word_count) +
                           " (getFilter(" + std::to_string(n) + ") asks for " +
                           std::to_string(spec.requested_bits) + " bits, int word count " +
                           std::to_string(spec.word_count) + ")");
  }
  SizeInfo info;
  info.hash_count = spec.hash_count;
  info.buckets_per_element = spec.buckets_per_element;
  info.words = spec.word_count;
  info.bits = spec.bit_count();
  info.file_bytes = spec.file_bytes();
  if (!spec.warning.empty()) info.warnings.push_back(spec.warning);
  if (spec.word_count == 0) {
    info.warnings.push_back(
        "word count 0: the original builds this filter but divides by zero "
        "on the first add or lookup");
  } else if (TrueRequestedBits(n, spec.buckets_per_element) > kMaxBits ||
             TrueRequestedBits(n, spec.buckets_per_element) < 0) {
    info.warnings.push_back(
        "the requested bit count does not fit an int word count; Java's "
        "wraparound/truncation gives " +
        std::to_string(spec.word_count) + " words");
  }
  return info;
}

std::string HashLine(std::int64_t h1, std::int64_t h2) {
  return std::to_string(h1) + "\t" + std::to_string(h2);
}

}  // namespace bloomcodec::cassandra
