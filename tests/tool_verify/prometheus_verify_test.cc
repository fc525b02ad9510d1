// verify --prometheus FILE (docs/cli.md, "--prometheus"): node_exporter's textfile format, read
// back by a strict parser of that format here, against verify's own --json document of the same
// directory; label escaping of a keyspace named with a quote, a backslash, a newline and a byte
// that is not UTF-8; the file written atomically.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "cli/cli_runner.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

// One sample: its metric name, labels and value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Reads one label value after its opening quote: only \\, \" and \n are escapes.
bool ReadLabelValue(const std::string& line, std::size_t& i, std::string& value) {
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      ++i;
      return true;
    }
    if (c != '\\') {
      value += c;
      continue;
    }
    if (++i == line.size()) return false;
    if (line[i] == '\\') {
      value += '\\';
    } else if (line[i] == '"') {
      value += '"';
    } else if (line[i] == 'n') {
      value += '\n';
    } else {
      return false;
    }
  }
  return false;
}

// The text exposition format, strictly: every line a HELP, a TYPE (gauge) or a sample of a
// metric whose HELP and TYPE came first; no blank lines, a final newline, no series twice.
std::vector<Sample> ParseExposition(const std::string& text) {
  std::vector<Sample> samples;
  EXPECT_TRUE(!text.empty() && text.back() == '\n');
  const std::regex name_re("[a-zA-Z_:][a-zA-Z0-9_:]*");
  std::set<std::string> helped, typed, series;
  for (const std::string& line : SplitLines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex("# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)"))) {
      EXPECT_TRUE(helped.insert(m[1]).second) << "HELP twice: " << line;
      continue;
    }
    if (std::regex_match(line, m, std::regex("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\\w+)"))) {
      EXPECT_TRUE(helped.count(m[1])) << "TYPE before HELP: " << line;
      EXPECT_EQ(m[2], "gauge") << line;
      EXPECT_TRUE(typed.insert(m[1]).second) << "TYPE twice: " << line;
      continue;
    }
    Sample s;
    std::size_t i = line.find_first_of("{ ");
    if (i == std::string::npos) {
      ADD_FAILURE() << "not a sample: " << line;
      continue;
    }
    s.name = line.substr(0, i);
    EXPECT_TRUE(std::regex_match(s.name, name_re)) << line;
    EXPECT_TRUE(typed.count(s.name)) << "sample before its TYPE: " << line;
    if (line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find("=\"", i);
        if (eq == std::string::npos) break;
        const std::string label = line.substr(i, eq - i);
        EXPECT_TRUE(std::regex_match(label, std::regex("[a-zA-Z_][a-zA-Z0-9_]*"))) << line;
        i = eq + 2;
        std::string value;
        EXPECT_TRUE(ReadLabelValue(line, i, value)) << "bad label value: " << line;
        EXPECT_TRUE(s.labels.emplace(label, value).second) << line;
        if (i < line.size() && line[i] == ',') ++i;
      }
      EXPECT_LT(i, line.size()) << line;
      ++i;
    }
    EXPECT_EQ(line.substr(i, 1), " ") << line;
    const std::string value = line.substr(i + 1);
    if (value == "NaN") {
      s.value = std::nan("");
    } else {
      std::size_t used = 0;
      s.value = std::stod(value, &used);
      EXPECT_EQ(used, value.size()) << line;
    }
    EXPECT_TRUE(series.insert(line.substr(0, i)).second) << "series twice: " << line;
    samples.push_back(std::move(s));
  }
  return samples;
}

const Sample* Find(const std::vector<Sample>& samples, const std::string& name,
                   const std::map<std::string, std::string>& labels) {
  for (const Sample& s : samples) {
    if (s.name == name && s.labels == labels) return &s;
  }
  ADD_FAILURE() << "no sample " << name;
  return nullptr;
}

constexpr const char* kFilter1000 = "cassandra-1.0/filters/n1000_b15.Filter.db";
constexpr const char* kKeys1000 = "cassandra-1.0/filters/keys_n1000.txt";

TEST(VerifyPrometheus, FiguresPerGroupMatchTheJsonReport) {
  CliDir dir;
  const std::string data = dir.Path("data");
  const KeyList keys = ReadHexKeysFixture(kKeys1000);
  PutSstable(data + "/Keyspace1", "Standard1-hc-1-", kFilter1000, keys);
  PutSstable(data + "/Keyspace1", "Standard1-hc-2-", kFilter1000, keys);
  // A keyspace whose name needs every escape, and an Index.db of keys the filter never saw:
  // false negatives, an error.
  const std::string odd = "K\"s\\x\n\xff";
  KeyList others;
  for (int i = 0; i < 200; ++i) others.Add(std::string_view("absent" + std::to_string(i)));
  PutSstable(data + "/" + odd, "Standard1-hc-1-", kFilter1000, others);
  const std::string prom = dir.Path("metrics/bloomcodec.prom");
  fs::create_directories(dir.Path("metrics"));

  const Json doc = VerifyJson({data, "--prometheus", prom}, 1);
  const std::vector<Sample> samples = ParseExposition(ReadAnyText(prom));
  for (const Sample& s : samples) EXPECT_TRUE(s.name.starts_with("bloomcodec_")) << s.name;

  EXPECT_EQ(Find(samples, "bloomcodec_verify_files", {{"status", "ok"}})->value,
            doc["summary"]["ok"].get<double>());
  EXPECT_EQ(Find(samples, "bloomcodec_verify_files", {{"status", "error"}})->value,
            doc["summary"]["errors"].get<double>());
  ASSERT_EQ(doc["summary"]["groups"].size(), 2u);
  for (const Json& g : doc["summary"]["groups"]) {
    const std::map<std::string, std::string> labels = {{"group", g["name"]}, {"role", g["role"]}};
    double tables = 0, errors = 0, warnings = 0, keys_checked = 0;
    for (const Json& f : doc["files"]) {
      if (f["group"] != g["name"]) continue;
      ++tables;
      errors += f["status"] == "error";
      warnings += f["status"] == "warning";
      keys_checked += f["keys_checked"].get<double>();
    }
    EXPECT_EQ(Find(samples, "bloomcodec_verify_tables", labels)->value, tables);
    EXPECT_EQ(Find(samples, "bloomcodec_verify_errors", labels)->value, errors);
    EXPECT_EQ(Find(samples, "bloomcodec_verify_warnings", labels)->value, warnings);
    EXPECT_EQ(Find(samples, "bloomcodec_verify_keys_checked", labels)->value, keys_checked);
    EXPECT_EQ(Find(samples, "bloomcodec_verify_fp_rate", labels)->value,
              g["combined_fp_rate"].get<double>());
  }
  // The odd keyspace: its name came back whole through the escapes (the byte that is not UTF-8
  // as U+FFFD, as in --json), and its table is the error.
  const std::map<std::string, std::string> odd_labels = {
      {"group", "K\"s\\x\n\xef\xbf\xbd/Standard1"}, {"role", "live"}};
  EXPECT_EQ(Find(samples, "bloomcodec_verify_errors", odd_labels)->value, 1);
  EXPECT_EQ(Find(samples, "bloomcodec_verify_keys_checked", odd_labels)->value, 200);
}

TEST(VerifyPrometheus, ReplacesTheFileAtomicallyAndLeavesNoTemporary) {
  CliDir dir;
  const std::string data = dir.Path("data");
  PutSstable(data + "/Keyspace1", "Standard1-hc-1-", kFilter1000, ReadHexKeysFixture(kKeys1000));
  const std::string metrics = dir.Path("metrics");
  fs::create_directories(metrics);
  const std::string prom = metrics + "/bloomcodec.prom";
  dir.Write("metrics/bloomcodec.prom", "stale\n");
  const CliRun r = RunCli({"verify", data, "--prometheus", prom});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("summary: 1 files"), std::string::npos) << r.out;  // the report as ever
  const std::string text = ReadAnyText(prom);
  EXPECT_EQ(text.find("stale"), std::string::npos);
  EXPECT_EQ(ParseExposition(text).size(), 5u + 5u);  // 5 statuses, 5 figures of one group
  // Only the .prom file: the temporary was renamed, not left beside it.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(metrics)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"bloomcodec.prom"});
  struct stat st {};
  ASSERT_EQ(::stat(prom.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // the collector runs as another user
}

TEST(VerifyPrometheus, RefusesStandardOutputAndAMissingDirectory) {
  CliDir dir;
  const std::string data = dir.Path("data");
  PutSstable(data + "/Keyspace1", "Standard1-hc-1-", kFilter1000, ReadHexKeysFixture(kKeys1000));
  CliRun r = RunCli({"verify", data, "--prometheus", "-"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--prometheus"), std::string::npos) << r.err;
  // Nothing printed when the metrics cannot be written.
  r = RunCli({"verify", data, "--prometheus", dir.Path("no/such/dir/x.prom")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace bloomcodec::testing
