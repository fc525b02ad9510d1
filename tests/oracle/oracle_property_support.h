// Shared pieces of the java-oracle properties: batches, asking the JVM, reporting.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "oracle/jvm_oracle.h"
#include "oracle/oracle_generators.h"

namespace bloomcodec::testing {

// Batch sizes: RapidCheck runs each property 100 times (RC_PARAMS may change that).
constexpr std::size_t kHashBatch = 400;
constexpr std::size_t kBucketBatch = 1000;
constexpr std::size_t kSizingBatch = 1000;
constexpr std::size_t kFilterBatch = 20;

template <typename T>
rc::Gen<std::vector<T>> Batch(std::size_t n, rc::Gen<T> one) {
  return gen::resize(100, gen::container<std::vector<T>>(n, std::move(one)));
}

// Sends the batch; a dead or refusing JVM fails the property with its message. Once the JVM is
// gone there is nothing left to learn, but RapidCheck would still walk its whole shrink tree
// over the batch (minutes for a fixed-size batch, whether the attempts fail or are discarded):
// so the next attempt ends the test process with the JVM's failure instead.
inline OracleAnswers Ask(const OracleRequest& request) {
  JvmOracle& oracle = JvmOracle::Shared();
  if (oracle.failed()) {
    std::cout << std::flush;
    std::fprintf(stderr,
                 "[  FAILED  ] %s\n(the test process stops here: the java oracle is gone)\n",
                 oracle.failure().c_str());
    std::_Exit(1);
  }
  auto answer = oracle.Call(request);
  if (!answer.ok()) RC_FAIL(answer.status().ToString());
  return OracleAnswers(std::move(*answer));
}

inline void ExpectConsumed(const OracleAnswers& a) {
  if (!a.ok()) RC_FAIL("oracle answer unreadable: " + a.error());
  if (!a.at_end()) RC_FAIL("oracle answered more than asked");
}

inline KeyList ToKeyList(const std::vector<ByteVector>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

inline std::string Hex(ByteSpan b) { return b.empty() ? "<empty>" : ToHex(b); }

inline std::string FirstDifference(ByteSpan ours, ByteSpan java) {
  std::size_t i = 0;
  while (i < ours.size() && i < java.size() && ours[i] == java[i]) ++i;
  return "lengths " + std::to_string(ours.size()) + " (C++) / " + std::to_string(java.size()) +
         " (JVM), first difference at byte " + std::to_string(i);
}

// Runs `property` under RapidCheck inside this gtest and prints how many cases agreed.
template <typename Property>
void CheckAndCount(const char* name, std::int64_t& agreed, Property property) {
  ASSERT_FALSE(JvmOracle::Shared().failed()) << JvmOracle::Shared().failure();
  ::rc::detail::checkGTest(property);
  if (::testing::Test::HasFailure()) {
    std::cout << name << ": FAILED (" << agreed << " cases agreed before, shrink runs included)\n";
  } else {
    std::cout << name << ": " << agreed << " cases agreed\n";
  }
  EXPECT_GT(agreed, 0);
}

}  // namespace bloomcodec::testing
