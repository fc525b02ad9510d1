// The key-schema registry (names as pebble.colblk.schema holds them) and CockroachDB's comparer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pebble/colblk/key_schema.h"
#include "support/test_support.h"

namespace bloomcodec::pebble::colblk {
namespace {

using ::bloomcodec::testing::HexBytes;

TEST(PebbleKeySchema, FindsTheSchemasTablesName) {
  Result<KeySchema> d = FindKeySchema("DefaultKeySchema(leveldb.BytewiseComparator,16)");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, KeySchemaKind::kDefault);
  EXPECT_EQ(d->comparer, KeyComparer::kBytewise);
  EXPECT_EQ(d->bundle_size, 16u);
  EXPECT_EQ(d->header_size(), 0u);
  EXPECT_EQ(d->name, DefaultKeySchema().name);

  Result<KeySchema> c = FindKeySchema("crdb1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, KeySchemaKind::kCrdb1);
  EXPECT_EQ(c->comparer, KeyComparer::kCockroach);
  EXPECT_EQ(c->header_size(), 1u);
  EXPECT_EQ(c->key_columns(), 4);

  // Any comparer decodes (the layout does not depend on it); only known ones order keys.
  Result<KeySchema> t = FindKeySchema("DefaultKeySchema(pebble.internal.testkeys,16)");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->comparer, KeyComparer::kUnknown);
  EXPECT_EQ(t->comparer_name, "pebble.internal.testkeys");
  Result<KeySchema> comma = FindKeySchema("DefaultKeySchema(a,b,8)");
  ASSERT_TRUE(comma.ok());
  EXPECT_EQ(comma->comparer_name, "a,b");
  EXPECT_EQ(comma->bundle_size, 8u);
}

TEST(PebbleKeySchema, RefusesUnknownNamesAsUnsupported) {
  for (const char* name :
       {"crdb2", "", "DefaultKeySchema(x,3)", "DefaultKeySchema(x,)", "DefaultKeySchema(x,16",
        "DefaultKeySchema(,16)x", "defaultkeyschema(x,16)"}) {
    Result<KeySchema> s = FindKeySchema(name);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), StatusCode::kUnsupported) << name;
    EXPECT_NE(s.status().message().find("unknown key schema \"" + std::string(name) + "\""),
              std::string::npos)
        << s.status().ToString();
    EXPECT_NE(s.status().message().find("crdb1"), std::string::npos);
  }
}

std::string Engine(const std::string& roach, const std::string& version_hex = "") {
  std::string k = roach;
  k.push_back('\0');
  if (!version_hex.empty()) {
    std::string hex;  // the literals below group bytes with spaces
    for (char c : version_hex) {
      if (c != ' ') hex.push_back(c);
    }
    const ByteVector v = HexBytes(hex);
    k.append(v.begin(), v.end());
    k.push_back(static_cast<char>(v.size() + 1));
  }
  return k;
}

TEST(PebbleKeySchema, CockroachOrder) {
  // Ascending: roach keys bytewise; per roach key no version first, then newer versions first.
  const std::vector<std::string> ascending = {
      Engine("a"),
      Engine("a", "0000000000000009"),
      Engine("a", "0000000000000008 00000002"),
      Engine("a", "0000000000000008 00000001"),
      Engine("a", "0000000000000008"),
      Engine("a", "0000000000000001"),
      Engine(std::string("a\0", 2)),
      Engine("b"),
  };
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    for (std::size_t j = 0; j < ascending.size(); ++j) {
      const int c = cockroach::Compare(AsBytes(ascending[i]), AsBytes(ascending[j]));
      EXPECT_EQ(c < 0, i < j) << i << " " << j;
      EXPECT_EQ(c == 0, i == j) << i << " " << j;
    }
  }
  // The same timestamp in its three encodings compares equal.
  const std::string wall = Engine("k", "0102030405060708");
  const std::string zero_logical = Engine("k", "010203040506070800000000");
  const std::string synthetic = Engine("k", "01020304050607080000000001");
  EXPECT_EQ(cockroach::Compare(AsBytes(wall), AsBytes(zero_logical)), 0);
  EXPECT_EQ(cockroach::Compare(AsBytes(wall), AsBytes(synthetic)), 0);
  EXPECT_TRUE(cockroach::Equal(AsBytes(zero_logical), AsBytes(synthetic)));
  EXPECT_FALSE(cockroach::Equal(AsBytes(wall), AsBytes(Engine("k"))));
  EXPECT_EQ(cockroach::Split(AsBytes(wall)), 2u);
  EXPECT_EQ(cockroach::Split(AsBytes(Engine("k"))), 2u);
  EXPECT_EQ(SplitUserKey(KeyComparer::kBytewise, AsBytes(wall)), wall.size());
  // Engine-key validity: the last byte is below the length and not 1.
  EXPECT_TRUE(cockroach::ValidEngineKey(AsBytes(wall)));
  EXPECT_FALSE(cockroach::ValidEngineKey(HexBytes("0001")));
  EXPECT_FALSE(cockroach::ValidEngineKey(HexBytes("6105")));
  // Malformed keys compare without reading outside them.
  EXPECT_NE(cockroach::Compare(HexBytes("61ff"), HexBytes("62")), 2);
}

}  // namespace
}  // namespace bloomcodec::pebble::colblk
