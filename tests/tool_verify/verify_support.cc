#include "tool_verify/verify_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cassandra/index_db.h"
#include "support/test_support.h"

namespace bloomcodec::testing {

void WriteFileAt(const std::string& path, ByteSpan bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

void PutSstable(const std::string& dir, const std::string& prefix,
                const std::string& filter_fixture, const KeyList& keys) {
  WriteFileAt(dir + "/" + prefix + "Filter.db", ReadFixture(filter_fixture));
  auto index = cassandra::WriteIndexDb(keys);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  WriteFileAt(dir + "/" + prefix + "Index.db", *index);
}

Json VerifyJson(std::vector<std::string> args, int expected_exit) {
  args.insert(args.begin(), "verify");
  args.push_back("--json");
  CliRun r = RunCli(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no progress line in a pipe
  Json doc = Json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

const Json& FileEndingWith(const Json& doc, const std::string& suffix) {
  for (const Json& f : doc["files"]) {
    if (f["path"].get<std::string>().ends_with(suffix)) return f;
  }
  ADD_FAILURE() << "no report for *" << suffix << " in " << doc.dump(1);
  static const Json none = Json::object();
  return none;
}

std::vector<std::string> Kinds(const Json& file) {
  std::vector<std::string> kinds;
  if (!file.contains("findings")) return kinds;
  for (const Json& f : file["findings"]) kinds.push_back(f["kind"].get<std::string>());
  return kinds;
}

double CombinedFromFiles(const Json& doc, const std::string& group) {
  double product = 1;
  for (const Json& f : doc["files"]) {
    if (f["group"] == group && !f["fp_rate"].is_null()) product *= 1 - f["fp_rate"].get<double>();
  }
  return 1 - product;
}

}  // namespace bloomcodec::testing
