// Which implementations of a CPU-dispatched kernel a test ran, which one the production dispatcher
// picks on this CPU, and which the test could not run because the CPU lacks their instructions.
// Tests never skip an implementation silently: ReportKernels prints one line per test (in the
// test's output, which ctest keeps) and records the same as test properties (gtest's XML:
// kernels_tested, kernels_not_tested, kernel_default, prefixed with the dispatcher's key).
#pragma once

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace bloomcodec::testing {

struct KernelRun {
  std::string name;     // e.g. "avx512"
  bool ran = false;     // the test ran it on this CPU
  std::string why_not;  // when it did not (e.g. "the CPU lacks avx512f and avx512dq")
};

// `key` names the dispatcher in the property names (e.g. "filter_kernels"), `where` for people
// (e.g. "formats/cassandra/filter_kernels.h"), `chosen` the implementation the production
// dispatcher picks on this CPU.
inline void ReportKernels(const std::string& key, const std::string& where,
                          const std::vector<KernelRun>& kernels, const std::string& chosen) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "";
  static std::map<std::string, std::string> reported;  // key -> the test it was reported for
  if (reported[key] == test) return;  // properties call this once per case: report once
  reported[key] = test;
  std::string ran, not_run;
  for (const KernelRun& k : kernels) {
    if (k.ran) {
      ran += (ran.empty() ? "" : ", ") + k.name;
    } else {
      not_run += (not_run.empty() ? "" : ", ") + k.name + " (" + k.why_not + ")";
    }
  }
  if (not_run.empty()) not_run = "none";
  if (info != nullptr) {
    ::testing::Test::RecordProperty(key + "_tested", ran);
    ::testing::Test::RecordProperty(key + "_not_tested", not_run);
    ::testing::Test::RecordProperty(key + "_default", chosen);
  }
  std::cout << "[kernels] " << where << ": tested " << ran << "; the production default here "
            << chosen << "; not tested: " << not_run << std::endl;
}

}  // namespace bloomcodec::testing
