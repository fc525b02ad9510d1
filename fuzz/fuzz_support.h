// Shared helpers of the libFuzzer targets: property checks that stop the run, and probe keys
// taken from the input so that the query paths see varied keys without another input channel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::fuzz {

// A violated property is a finding: stop with a crash the fuzzer records (and minimizes).
#define FUZZ_CHECK(condition)           \
  do {                                  \
    if (!(condition)) __builtin_trap(); \
  } while (0)

// Every refusal of bad bytes must name the file it refers to, first, as the CLI prints it
// ("SOURCE: byte N: expected ...", or "SOURCE (part): ..." for a file inside another): in the
// status's file field or at the start of its message.
inline void CheckNamesSource(const Status& status, std::string_view source) {
  if (status.ok()) return;
  const std::string text = status.ToString();
  FUZZ_CHECK(
      text.size() > source.size() + 1 && text.compare(0, source.size(), source) == 0 &&
      (text.compare(source.size(), 2, ": ") == 0 || text.compare(source.size(), 2, " (") == 0));
}

// The same, and an offset the status names lies inside the input (at most at its end).
inline void CheckNamesSourceAndOffset(const Status& status, std::string_view source,
                                      std::size_t input_size) {
  CheckNamesSource(status, source);
  if (std::optional<std::uint64_t> at = status.offset()) FUZZ_CHECK(*at <= input_size);
}

// A handful of probe keys: the empty key, a fixed key, and slices of the input.
inline KeyList ProbeKeys(ByteSpan input) {
  KeyList keys;
  keys.Add(ByteSpan());
  keys.Add(std::string_view("bloomcodec"));
  for (std::size_t len : {1u, 4u, 8u, 16u}) {
    if (input.size() >= len) keys.Add(input.last(len));
  }
  if (input.size() >= 24) keys.Add(input.subspan(8, 16));
  return keys;
}

// Cassandra probes cost K bucket tests per key, as in the original (which also allocates long[K]
// per lookup). K is an unchecked i32: 2^31 - 1 takes seconds per key. Decoding such a header is
// fuzzed; probing it is skipped above this K so that the run is not spent on one slow input.
inline constexpr std::int64_t kMaxFuzzedHashCount = 1 << 16;

inline std::int64_t BigI32At(ByteSpan bytes, std::size_t at) {
  if (bytes.size() < at + 4) return 0;
  return static_cast<std::int32_t>(std::uint32_t{bytes[at]} << 24 |
                                   std::uint32_t{bytes[at + 1]} << 16 |
                                   std::uint32_t{bytes[at + 2]} << 8 | bytes[at + 3]);
}

inline bool SameKeys(const KeyList& a, const KeyList& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ByteSpan x = a[i], y = b[i];
    if (x.size() != y.size() || !std::equal(x.begin(), x.end(), y.begin())) return false;
  }
  return true;
}

inline bool SameBytes(ByteSpan a, ByteSpan b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace bloomcodec::fuzz
