// Basho's bloom2 kernel (formats/leveldb/basho_bloom.h) against references written here from the
// facts (FORMAT.md, "Basho's LevelDB"): MurmurHash64A from its public description, the modulus P
// by trial division, the probe as a plain loop.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur_hash.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/leveldb/hash.h"
#include "leveldb/basho_bloom.h"
#include "random_keys.h"

namespace bloomcodec::leveldb {
namespace {

using testing::RandomKeys;

ByteSpan Bytes(const std::string& s) { return AsBytes(s); }

// MurmurHash64A written out plainly: 8-byte little-endian words assembled byte by byte, the
// tail's bytes xored in one at a time at their shifts.
std::uint64_t ReferenceMurmur64A(const std::string& key, std::uint64_t seed) {
  const std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  std::uint64_t h = seed ^ (key.size() * m);
  std::size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    std::uint64_t k = 0;
    for (int b = 0; b < 8; ++b)
      k |= std::uint64_t{static_cast<std::uint8_t>(key[i + b])} << (8 * b);
    k *= m;
    k ^= k >> 47;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (i < key.size()) {
    for (std::size_t b = 0; i + b < key.size(); ++b) {
      h ^= std::uint64_t{static_cast<std::uint8_t>(key[i + b])} << (8 * b);
    }
    h *= m;
  }
  h ^= h >> 47;
  h *= m;
  h ^= h >> 47;
  return h;
}

bool IsPrime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::uint32_t ReferenceModulus(std::uint64_t bytes) {
  if (bytes >= 12498) return static_cast<std::uint32_t>(bytes * 8);
  std::uint64_t p = bytes * 8;
  while (!IsPrime(p)) --p;
  return static_cast<std::uint32_t>(p);
}

// Basho's KeyMayMatch as a plain loop over the facts.
bool ReferenceMayContain(const ByteVector& filter, const std::string& key) {
  if (filter.size() < 2) return false;
  const int k = static_cast<std::int8_t>(filter.back());
  if (k < 0 || k > 30) return true;
  const std::uint64_t p = ReferenceModulus(filter.size() - 1);
  std::uint32_t h = BloomHash(Bytes(key), HashFlavor::kSignedTail);
  const auto h2 = static_cast<std::uint32_t>(ReferenceMurmur64A(key, 0x5bd1e995));
  const std::uint32_t delta = (h >> 17) | (h << 15);
  for (int j = 0; j < k; ++j) {
    const std::uint64_t bit = (std::uint64_t{h} + std::uint64_t(j + 1) * h2) % p;
    if (((filter[bit / 8] >> (bit % 8)) & 1) == 0) return false;
    h += delta;
  }
  return true;
}

TEST(BashoBloom2, MurmurHash64AMatchesTheReference) {
  for (const std::string& key : RandomKeys(7, 2000)) {
    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{0x5bd1e995}, ~std::uint64_t{0}}) {
      ASSERT_EQ(MurmurHash64A(Bytes(key), seed), ReferenceMurmur64A(key, seed)) << key.size();
    }
  }
}

// MurmurHash2 (Appleby's 32-bit) written out plainly: little-endian 4-byte words, then the tail
// bytes (unsigned) at their shifts, then the final mix.
std::uint32_t ReferenceMurmur2(const std::string& key, std::uint32_t seed) {
  const std::uint32_t m = 0x5bd1e995;
  std::uint32_t h = seed ^ static_cast<std::uint32_t>(key.size());
  std::size_t i = 0;
  for (; i + 4 <= key.size(); i += 4) {
    std::uint32_t k = 0;
    for (int b = 0; b < 4; ++b)
      k |= std::uint32_t{static_cast<std::uint8_t>(key[i + b])} << (8 * b);
    k *= m;
    k ^= k >> 24;
    k *= m;
    h *= m;
    h ^= k;
  }
  if (i < key.size()) {
    for (std::size_t b = 0; i + b < key.size(); ++b) {
      h ^= std::uint32_t{static_cast<std::uint8_t>(key[i + b])} << (8 * b);
    }
    h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

TEST(BashoBloom2, MurmurHash2MatchesTheReference) {
  EXPECT_EQ(MurmurHash2({}, 0), 0u);  // nothing mixed in: every step keeps 0
  for (const std::string& key : RandomKeys(9, 1000)) {
    for (std::uint32_t seed : {0u, 0x5bd1e995u, ~0u}) {
      ASSERT_EQ(MurmurHash2(Bytes(key), seed), ReferenceMurmur2(key, seed)) << key.size();
    }
  }
}

TEST(BashoBloom2, EachBuildAnswersItsOwnKeysAndDiffersFromTheOthers) {
  // Keys with a tail byte >= 0x80 (signed and unsigned char differ) at 16 bits per key: every
  // build's filter answers its own keys; x86-64's reading of another build's denies most.
  std::vector<Bloom2Build> builds{kBloom2X86_64};
  for (const Bloom2Build& b : Bloom2OtherBuilds()) builds.push_back(b);
  KeyList keys;
  for (std::string key : RandomKeys(10, 400)) {
    key.push_back('\xf0');
    keys.Add(Bytes(key));
  }
  for (const Bloom2Build& writer : builds) {
    ByteVector filter;
    AppendBloom2Filter(16, keys, filter, writer);
    for (const Bloom2Build& reader : builds) {
      std::size_t answered = 0;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        answered += Bloom2MayContain(filter, keys[i], reader);
      }
      if (&reader == &writer || reader.name == writer.name) {
        EXPECT_EQ(answered, keys.size()) << writer.name;
      } else {
        EXPECT_LT(answered, keys.size() / 2) << writer.name << " read as " << reader.name;
      }
    }
  }
}

TEST(BashoBloom2, MurmurHash64AMatchesCassandrasWhereTheyAgree) {
  // Cassandra's MurmurHash64 is MurmurHash64A as Java computes it: the same for a 32-bit seed
  // and tail bytes below 0x80, tested elsewhere against Cassandra itself.
  for (std::string key : RandomKeys(8, 2000)) {
    for (char& c : key) c = static_cast<char>(c & 0x7f);
    EXPECT_EQ(MurmurHash64A(Bytes(key), 0x5bd1e995),
              static_cast<std::uint64_t>(cassandra::MurmurHash64(Bytes(key), 0x5bd1e995)));
  }
}

TEST(BashoBloom2, ModulusIsTheLargestPrimeUpToThePrimeTablesEnd) {
  EXPECT_EQ(Bloom2Modulus(1), 7u);
  EXPECT_EQ(Bloom2Modulus(2), 13u);
  EXPECT_EQ(Bloom2Modulus(26), 199u);  // no prime in (199, 208]: the same as 25 bytes
  EXPECT_EQ(Bloom2Modulus(25), 199u);
  EXPECT_EQ(Bloom2Modulus(12497), ReferenceModulus(12497));
  EXPECT_TRUE(IsPrime(Bloom2Modulus(12497)));
  EXPECT_EQ(Bloom2Modulus(12498), 12498u * 8);  // past the table: 8B, not a prime
  EXPECT_EQ(Bloom2Modulus(1u << 29), 0u);       // 2^32 wraps in Basho's 32-bit unsigned
  EXPECT_EQ(Bloom2Modulus((1u << 29) + 1), 8u);
  for (std::uint64_t b = 1; b < 12498; b += 7) {
    ASSERT_EQ(Bloom2Modulus(b), ReferenceModulus(b)) << b;
  }
}

TEST(BashoBloom2, WriterSizesAsBashoDoes) {
  EXPECT_EQ(Bloom2K(16), 11);
  EXPECT_EQ(Bloom2K(10), 6);
  EXPECT_EQ(Bloom2K(1), 1);
  EXPECT_EQ(Bloom2K(100), 30);
  EXPECT_EQ(Bloom2BytesFor(61), 8u);    // P(8) = 61
  EXPECT_EQ(Bloom2BytesFor(62), 9u);    // P(8) < 62 <= P(9) = 71
  EXPECT_EQ(Bloom2BytesFor(208), 27u);  // P(26) = 199 < 208: the next byte count
  EXPECT_EQ(Bloom2BytesFor(12497 * 8), 12498u);
  EXPECT_EQ(Bloom2BytesFor(200000), 25000u);
  for (std::size_t n : {0u, 1u, 3u, 100u, 2500u, 20000u}) {
    const std::vector<std::string> keys = RandomKeys(100 + n, n);
    KeyList list;
    for (const std::string& k : keys) list.Add(k);
    ByteVector filter;
    AppendBloom2Filter(10, list, filter);
    const std::uint64_t bits = std::max<std::uint64_t>(61, n * 10);
    ASSERT_EQ(filter.size(), Bloom2BytesFor(bits) + 1) << n;
    EXPECT_GE(Bloom2Modulus(filter.size() - 1), bits);
    EXPECT_EQ(filter.back(), 6);
    std::vector<std::uint8_t> answers(list.size());
    Bloom2MayContainBatch(filter, list, answers);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(Bloom2MayContain(filter, Bytes(keys[i]))) << n << " " << i;
      ASSERT_TRUE(ReferenceMayContain(filter, keys[i]));
      ASSERT_EQ(answers[i], 1);
    }
    // Keys not added: the kernel and the reference agree, and most are absent.
    std::size_t hits = 0;
    for (const std::string& other : RandomKeys(999 + n, 500)) {
      const bool got = Bloom2MayContain(filter, Bytes(other));
      ASSERT_EQ(got, ReferenceMayContain(filter, other));
      hits += got;
    }
    EXPECT_LT(hits, 100u);
  }
}

TEST(BashoBloom2, KByteAndLengthRules) {
  ByteVector filter(40, 0);  // no bit set: only the k rule can answer "present"
  for (int k : {31, 0x7f, 0x80, 0xff, 0}) {
    filter.back() = static_cast<std::uint8_t>(k);
    EXPECT_TRUE(Bloom2MayContain(filter, AsBytes("any"))) << k;
  }
  filter.back() = 1;
  EXPECT_FALSE(Bloom2MayContain(filter, AsBytes("any")));
  EXPECT_FALSE(Bloom2MayContain(ByteVector{}, AsBytes("any")));
  EXPECT_FALSE(Bloom2MayContain(ByteVector{0x80}, AsBytes("any")));
  EXPECT_TRUE(Bloom2MayContain(ByteVector{0xff, 0x80}, AsBytes("any")));
}

TEST(BashoBloom2, FillCountsOnlyTheBitsBelowTheModulus) {
  ByteVector filter(3, 0xff);  // 2 bytes: P = 13, the top 3 bits unreachable
  filter.back() = 5;
  const Bloom2Fill fill = Bloom2FillOf(filter);
  EXPECT_EQ(fill.bits, 13u);
  EXPECT_EQ(fill.bits_set, 13u);
  EXPECT_EQ(fill.hash_count, 5u);
  filter.back() = 0x90;
  EXPECT_EQ(Bloom2FillOf(filter).hash_count, 0u);
  EXPECT_EQ(Bloom2FillOf(ByteVector{1}).bits, 0u);
}

}  // namespace
}  // namespace bloomcodec::leveldb
