#include "convert_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/test_support.h"

namespace bloomcodec::testing {

std::vector<std::string> FixtureNames(const std::string& folder, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(FixturePath(folder))) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(suffix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<FixtureFile> AllFixtureFilters() {
  std::vector<FixtureFile> files;
  for (const std::string& n : FixtureNames("cassandra-1.0/filters", ".Filter.db")) {
    files.push_back({"cassandra-1.0/filters/" + n, "cassandra-1.0"});
  }
  for (const std::string& n : FixtureNames("cassandra-1.0/legacy", ".Filter.db")) {
    files.push_back({"cassandra-1.0/legacy/" + n, "cassandra-legacy"});
  }
  for (std::string n : FixtureNames("cassandra-1.0/rowfilter", ".bin")) {
    files.push_back({"cassandra-1.0/rowfilter/" + n, "cassandra-1.0-row"});
  }
  for (const std::string& n : FixtureNames("leveldb/raw/filters", ".bin")) {
    files.push_back({"leveldb/raw/filters/" + n, "leveldb-bloom"});
  }
  for (const std::string& n :
       FixtureNames("leveldb/raw/legacy_v1.17_signed_char/filters", ".bin")) {
    files.push_back({"leveldb/raw/legacy_v1.17_signed_char/filters/" + n, "leveldb-bloom-legacy"});
  }
  for (const std::string& n : FixtureNames("leveldb/tables", ".filterblock.bin")) {
    // A table without a filter has an empty .filterblock.bin: not a filter block at all.
    if (ReadFixture("leveldb/tables/" + n).empty()) continue;
    files.push_back({"leveldb/tables/" + n, "leveldb-filter-block"});
  }
  for (std::string n : FixtureNames("leveldb/tables", ".ldb")) {
    files.push_back({"leveldb/tables/" + n, "leveldb-table"});
  }
  for (std::string n : FixtureNames("leveldb/tables", ".ldb.gz")) {
    n.resize(n.size() - 3);
    files.push_back({"leveldb/tables/" + n, "leveldb-table"});
  }
  return files;
}

nlohmann::ordered_json RunJson(const std::vector<std::string>& args) {
  CliRun r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

}  // namespace bloomcodec::testing
