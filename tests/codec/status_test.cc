#include <gtest/gtest.h>

#include "bloomcodec/status.h"

namespace bloomcodec {
namespace {

// Internal marks a failed check of our own output, so that callers (and a bug report) can tell
// it apart from bad input; its text is the message alone, like the other file-less codes.
TEST(Status, InternalHasItsCodeAndName) {
  const Status s = Status::Internal("the rebuilt filter misses a key");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(StatusCodeName(s.code()), "internal");
  EXPECT_EQ(s.ToString(), "the rebuilt filter misses a key");
  EXPECT_EQ(s.WithFile("f.db").ToString(), "f.db: the rebuilt filter misses a key");
}

}  // namespace
}  // namespace bloomcodec
