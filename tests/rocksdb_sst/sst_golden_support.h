// The golden SSTs of fixtures/rocksdb-sst (RocksDB 7.8.3's SstFileWriter) and their meta.tsv
// facts, shared by the golden tests.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.h"

namespace bloomcodec::testing {

inline const std::vector<std::string>& GoldenSstNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    TsvTable t = ReadTsvFixture("rocksdb-sst/ssts.tsv");
    for (std::size_t i = 0; i < t.rows.size(); ++i) out.push_back(t.At(i, "name"));
    return out;
  }();
  return names;
}

// meta.tsv: "field<TAB>value[<TAB>value]" lines; metaindex_entry repeats.
struct SstMeta {
  std::map<std::string, std::string> fields;
  std::vector<std::pair<std::string, std::string>> metaindex;  // key, value hex
};

inline SstMeta ReadSstMeta(const std::string& name) {
  SstMeta meta;
  const std::string text = ReadFixtureText("rocksdb-sst/" + name + ".meta.tsv");
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string field = line.substr(0, tab);
    const std::string rest = line.substr(tab + 1);
    if (field == "metaindex_entry") {
      const std::size_t tab2 = rest.find('\t');
      meta.metaindex.emplace_back(rest.substr(0, tab2), rest.substr(tab2 + 1));
    } else {
      meta.fields[field] = rest;
    }
  }
  return meta;
}

}  // namespace bloomcodec::testing
