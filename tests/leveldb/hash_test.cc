// Properties of the two hash flavours that hold by construction of the original: they agree
// unless a tail byte (the last length % 4 bytes) is >= 0x80, and then they always differ.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>

#include "bloomcodec/leveldb/hash.h"
#include "rc_check.h"

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

TEST(Hash, FlavoursDifferExactlyWhenATailByteIsHigh) {
  CheckProperty(1000, 100, [] {
    const auto data = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    bool high_tail = false;
    for (std::size_t i = data.size() - data.size() % 4; i < data.size(); ++i) {
      high_tail |= static_cast<unsigned char>(data[i]) >= 0x80;
    }
    const bool differ = Hash(AsBytes(data), seed, HashFlavor::kUnsignedTail) !=
                        Hash(AsBytes(data), seed, HashFlavor::kSignedTail);
    RC_CLASSIFY(high_tail);
    RC_ASSERT(differ == high_tail);
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb
