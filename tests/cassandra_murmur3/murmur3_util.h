// Shared by the Cassandra 1.2 - 5.0 tests: the golden folder, its variants and small readers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/format.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra::murmur3_testing {

inline const std::string kDir = "cassandra-murmur3/";

struct Variant {
  std::string folder;
  std::string format;
  Era era;
};
inline const std::vector<Variant>& Variants() {
  static const std::vector<Variant> v = {
      {"v1_2_to_2_2", "cassandra-1.2", Era::kV12},
      {"v3_x", "cassandra-3.0", Era::kV30},
      {"v4_0_to_5_0", "cassandra-4.0", Era::kV40},
  };
  return v;
}
inline const Variant& VariantOf(const std::string& folder) {
  for (const Variant& v : Variants()) {
    if (v.folder == folder) return v;
  }
  throw std::logic_error("no variant " + folder);
}

inline const FormatCodec& Codec(std::string_view name) {
  const FormatCodec* f = FindFormat(name);
  if (f == nullptr) throw std::logic_error("no format " + std::string(name));
  return *f;
}

// A 0/1 answer per line.
inline std::vector<std::uint8_t> ReadAnswers(const std::string& relative) {
  const std::string text = bloomcodec::testing::ReadFixtureText(relative);
  std::vector<std::uint8_t> out;
  for (char c : text) {
    if (c == '0' || c == '1') out.push_back(static_cast<std::uint8_t>(c - '0'));
  }
  return out;
}

inline std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const std::size_t c = s.find(',', b);
    out.push_back(s.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  return out;
}

}  // namespace bloomcodec::cassandra::murmur3_testing
