// Internal header: what the FormatCodec adapters of Cassandra's eras share (each era's is its
// folder's format_codecs.cc): which Filter.db an era claims, how the command line's parameters
// pick one of Cassandra's getFilter overloads, 1.0's sizing report, the `hash` line.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

// A Filter.db whose file name's version is of `era`.
bool ClaimsEra(std::string_view path, Era era);

// The number of elements Cassandra sizes from: --expected-keys, else the number of keys given.
std::int64_t ElementCount(std::uint64_t keys, const FilterParams& params);

// Which getFilter overload the parameters select: exactly one of fp chance / buckets per
// element (a Java int); --bits-per-key is refused.
Status CheckOverload(const FilterParams& params);

// The largest filter a 1.0 header can describe: W = 2^31 - 1 words.
inline constexpr std::int64_t kMaxBits = std::int64_t{INT32_MAX} * 64;
// n * bpe + 20 without Java's wraparound, saturated: what the caller actually asked for.
std::int64_t TrueRequestedBits(std::int64_t n, std::int32_t bpe);
// `size` of 1.0's getFilter(n, ...) as `spec` has it (the 1.0 filter and the row filter's).
Result<SizeInfo> V10SizeInfo(std::int64_t n, const FilterSpec& spec);

// The `hash` line of a key's two hashes: "h1<TAB>h2".
std::string HashLine(std::int64_t h1, std::int64_t h2);

// A streamed build of a V10Filter or Murmur3Filter (created for the count): each chunk's bits
// are set as it comes (format.h's CountingBuilder).
template <typename F>
struct FilterWriter {
  F filter;
  void Add(std::span<const ByteSpan> keys) { filter.AddAll(keys); }
  ByteVector Take() && { return std::move(filter).TakeSerialized(); }
};
template <typename F>
Result<std::unique_ptr<FilterBuilder>> StartAdding(F filter, std::uint64_t key_count) {
  return StartCounting(FilterWriter<F>{std::move(filter)}, key_count);
}

}  // namespace bloomcodec::cassandra
