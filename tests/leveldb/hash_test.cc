// Properties of the two hash flavours that hold by construction of the original: they agree
// unless a tail byte (the last length % 4 bytes) is >= 0x80, and then they always differ.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>

#include "bloomcodec/leveldb/hash.h"
#include "rc_check.h"
#include "support/rc_rates.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::CheckProperty;

TEST(Hash, EmptyInputIsTheSeed) {
  // n = 0: h = seed ^ (0 * m), and no rounds.
  EXPECT_EQ(Hash({}, 0x12345678, HashFlavor::kUnsignedTail), 0x12345678u);
  EXPECT_EQ(BloomHash({}, HashFlavor::kSignedTail), kBloomHashSeed);
}

TEST(Hash, SingleHighByteHandComputed) {
  // h = seed ^ m; h += tail; h *= m; h ^= h >> 24, with tail 0x80 or 0xffffff80.
  constexpr std::uint32_t m = 0xc6a4a793;
  const std::uint8_t byte = 0x80;
  for (const auto& [flavor, tail] : {std::pair{HashFlavor::kUnsignedTail, 0x80u},
                                     std::pair{HashFlavor::kSignedTail, 0xffffff80u}}) {
    std::uint32_t h = 0 ^ m;
    h += tail;
    h *= m;
    h ^= h >> 24;
    EXPECT_EQ(Hash(ByteSpan(&byte, 1), 0, flavor), h);
  }
}

// Keys of 0 - 40 bytes (a tail in 3 cases of 4), bytes uniform whatever the case size but the
// tail's: in 1 case of 2 one tail byte is 0x80 or above, otherwise every one is below.
TEST(Hash, FlavoursDifferExactlyWhenATailByteIsHigh) {
  CheckProperty(1000, 100, [] {
    const std::size_t length = *testing::Uniform<std::size_t>(0, 41);
    auto data = *rc::gen::container<std::string>(
        length,
        rc::gen::map(testing::AnyByte(), [](std::uint8_t b) { return static_cast<char>(b); }));
    const std::size_t tail_start = data.size() - data.size() % 4;
    for (std::size_t i = tail_start; i < data.size(); ++i) data[i] &= 0x7f;
    if (tail_start < data.size() && *testing::OneIn(1, 2)) {
      data[tail_start + *testing::Uniform<std::size_t>(0, data.size() - tail_start)] |= '\x80';
    }
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    bool high_tail = false;
    for (std::size_t i = data.size() - data.size() % 4; i < data.size(); ++i) {
      high_tail |= static_cast<unsigned char>(data[i]) >= 0x80;
    }
    const bool differ = Hash(AsBytes(data), seed, HashFlavor::kUnsignedTail) !=
                        Hash(AsBytes(data), seed, HashFlavor::kSignedTail);
    RC_TAG(tail_start == data.size() ? "no tail"
           : high_tail               ? "a tail byte >= 0x80"
                                     : "tail bytes < 0x80");
    RC_ASSERT(differ == high_tail);
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb
