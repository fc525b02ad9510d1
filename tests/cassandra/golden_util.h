// Readers for the golden tables of fixtures/cassandra-1.0 shared by the Cassandra tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra::testing {

inline const std::string kDir = "cassandra-1.0/";

inline std::int64_t ParseI64(const std::string& s) { return std::stoll(s); }

inline std::uint64_t ParseHex64(const std::string& s) { return std::stoull(s, nullptr, 16); }

inline std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t b = 0;
  for (;;) {
    std::size_t c = s.find(',', b);
    out.push_back(s.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  return out;
}

// A probes file: `key_hex<TAB>answer` per line, no header.
struct Probes {
  KeyList keys;
  std::vector<std::uint8_t> answers;
};
inline Probes ReadProbes(const std::string& relative) {
  const std::string text = bloomcodec::testing::ReadFixtureText(relative);
  Probes p;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    const std::size_t tab = line.find('\t');
    p.keys.Add(ByteSpan(bloomcodec::testing::HexBytes(line.substr(0, tab))));
    p.answers.push_back(line.substr(tab + 1) == "1" ? 1 : 0);
    begin = end + 1;
  }
  return p;
}

}  // namespace bloomcodec::cassandra::testing
