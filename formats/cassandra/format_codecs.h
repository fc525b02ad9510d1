// Internal header: what the FormatCodec adapters of Cassandra's filter formats share (here and
// in v06/format_codecs.cc): which Filter.db a format claims, and how the command line's
// parameters pick one of Cassandra's getFilter overloads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {

// A Filter.db whose file name's version writes filters of `kind`.
bool ClaimsKind(std::string_view path, FilterKind kind);

// The number of elements Cassandra sizes from: --expected-keys, else the number of keys given.
std::int64_t ElementCount(std::uint64_t keys, const FilterParams& params);

// Which getFilter overload the parameters select: exactly one of fp chance / buckets per
// element (a Java int); --bits-per-key is refused.
Status CheckOverload(const FilterParams& params);

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
