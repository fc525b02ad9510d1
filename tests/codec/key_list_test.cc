#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "bloomcodec/key_list.h"
#include "support/rc_rates.h"

namespace bloomcodec {
namespace {

std::vector<std::string> Keys(std::string_view file, KeyFormat f = KeyFormat::kText) {
  auto r = ParseKeyFile(AsBytes(file), f, "k");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  if (!r.ok()) return out;
  for (std::size_t i = 0; i < r->size(); ++i) out.emplace_back(AsChars((*r)[i]));
  return out;
}

TEST(KeyFile, LinesFollowTheContract) {
  EXPECT_TRUE(Keys("").empty());
  EXPECT_EQ(Keys("\n"), std::vector<std::string>{""});
  EXPECT_EQ(Keys("a\nb"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Keys("a\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Keys("\na\n\n"), (std::vector<std::string>{"", "a", ""}));
  EXPECT_EQ(Keys("x\r\n"), std::vector<std::string>{"x\r"}) << "text keys are exact bytes";
}

TEST(KeyFile, HexAndBase64) {
  EXPECT_EQ(Keys("00ff\nAbCd\n\n", KeyFormat::kHex),
            (std::vector<std::string>{std::string("\0\xff", 2), "\xab\xcd", ""}));
  EXPECT_EQ(Keys("Zm9v\n\nYQ==\n", KeyFormat::kBase64), (std::vector<std::string>{"foo", "", "a"}));
}

TEST(KeyFile, MalformedLineIsNamed) {
  auto r = ParseKeyFile(AsBytes("00\nabc\n"), KeyFormat::kHex, "keys.hex");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("keys.hex: byte 3: expected line 2 to be hex"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(ParseKeyFile(AsBytes("zz\n"), KeyFormat::kHex, "k").ok());
  EXPECT_FALSE(ParseKeyFile(AsBytes("abc\n"), KeyFormat::kBase64, "k").ok());
}

TEST(KeyFile, FormatNames) {
  KeyFormat f;
  EXPECT_TRUE(ParseKeyFormat("base64", f));
  EXPECT_EQ(f, KeyFormat::kBase64);
  EXPECT_FALSE(ParseKeyFormat("binary", f));
}

// Add copies keys of every length exactly (short ones by overlapping 8-byte moves, the rest by
// memcpy), also into a list cleared and refilled in its kept capacity. Key lengths are uniform
// in 0 - 80 whatever the case size: under 8 bytes, 8 - 32 and over 32 in about 1, 3 and 6 of 10.
RC_GTEST_PROP(KeyList, AddKeepsEveryKeyExactly, ()) {
  const auto key = rc::gen::mapcat(testing::Uniform<std::size_t>(0, 81), [](std::size_t n) {
    return rc::gen::container<std::vector<std::uint8_t>>(n, testing::AnyByte());
  });
  const auto keys = *rc::gen::container<std::vector<std::vector<std::uint8_t>>>(key);
  bool bytewise = false, overlapping = false, copied = false;
  for (const auto& k : keys) {
    (k.size() < 8 ? bytewise : k.size() <= 32 ? overlapping : copied) = true;
  }
  RC_CLASSIFY(bytewise, "< 8 bytes");
  RC_CLASSIFY(overlapping, "8 - 32 bytes");
  RC_CLASSIFY(copied, "> 32 bytes");
  KeyList list;
  list.Add(AsBytes("a key the refill replaces"));
  list.Clear();
  std::size_t total = 0;
  for (const auto& k : keys) {
    list.Add(ByteSpan(k));
    total += k.size();
  }
  RC_ASSERT(list.size() == keys.size());
  RC_ASSERT(list.total_bytes() == total);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const ByteSpan got = list[i];
    RC_ASSERT(std::vector<std::uint8_t>(got.begin(), got.end()) == keys[i]);
  }
}

}  // namespace
}  // namespace bloomcodec
