// Runs a RapidCheck property inside a gtest TEST with an explicit number of cases and maximum
// size, so that the run time of each property stays bounded whatever RC_PARAMS says (its seed
// and reproduce settings still apply).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace bloomcodec::leveldb::testing_support {

// `shrink` false: a failure reports the drawn case as it is (for properties whose every step is
// expensive, such as writing a database).
template <typename Testable>
void CheckBounded(int cases, int max_size, Testable&& testable, bool shrink = true) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  TestParams params = configuration().testParams;
  params.maxSuccess = cases;
  params.maxSize = max_size;
  params.disableShrinking = !shrink;
  const TestResult result =
      checkProperty(toProperty(std::forward<Testable>(testable)), metadata, params);
  std::ostringstream message;
  printResultMessage(result, message);
  if (result.template is<SuccessResult>()) {
    EXPECT_EQ(result.template get<SuccessResult>().numSuccess, cases) << message.str();
    std::cout << message.str() << "\n";  // case count and RC_TAG distribution
  } else {
    ADD_FAILURE() << message.str();
  }
}

}  // namespace bloomcodec::leveldb::testing_support
