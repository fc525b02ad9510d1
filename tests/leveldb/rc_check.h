// Runs a RapidCheck property with an explicit case count and size, so that each property's run
// time stays bounded whatever RC_PARAMS says (its seed and reproduce settings still apply). As
// RC_GTEST_PROP does, a passing run prints its case count and tags (RC_TAG, RC_CLASSIFY).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace bloomcodec::testing {

template <typename Testable>
void CheckProperty(int max_success, int max_size, Testable&& testable) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  TestParams params = configuration().testParams;
  params.maxSuccess = max_success;
  params.maxSize = max_size;
  const TestResult result =
      checkProperty(toProperty(std::forward<Testable>(testable)), metadata, params);
  std::ostringstream message;
  printResultMessage(result, message);
  if (result.template is<SuccessResult>()) {
    const auto& success = result.template get<SuccessResult>();
    EXPECT_EQ(success.numSuccess, max_success) << message.str();
    if (!success.distribution.empty()) std::cout << message.str() << "\n";
  } else {
    ADD_FAILURE() << message.str();
  }
}

}  // namespace bloomcodec::testing
