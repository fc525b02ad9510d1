// Index.db of versions ia .. oa: our writer and reader round trip, Cassandra's unsigned vint, and
// every truncation of a file is a Corrupt status with an offset. (No Cassandra-written Index.db of
// these versions exists in the golden data: these layouts are tested against our writer only.)
#include "cassandra/index_db.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bloomcodec::cassandra {
namespace {

KeyList SomeKeys() {
  KeyList keys;
  keys.Add(std::string_view(""));
  keys.Add(std::string_view("a"));
  keys.Add(std::string_view("partition-key-2"));
  std::string big(300, '\xff');
  keys.Add(std::string_view(big));
  return keys;
}

TEST(CassandraMurmur3IndexDb, EntryFormByVersion) {
  EXPECT_EQ(IndexEntryFormForVersion("hf"), IndexEntryForm::kPositionOnly);
  EXPECT_EQ(IndexEntryFormForVersion("ia"), IndexEntryForm::kLongPositionAndPromoted);
  EXPECT_EQ(IndexEntryFormForVersion("lb"), IndexEntryForm::kLongPositionAndPromoted);
  EXPECT_EQ(IndexEntryFormForVersion("ma"), IndexEntryForm::kVIntPositionAndPromoted);
  EXPECT_EQ(IndexEntryFormForVersion("oa"), IndexEntryForm::kVIntPositionAndPromoted);
}

TEST(CassandraMurmur3IndexDb, UnsignedVIntEncoding) {
  // Sizes from VIntCoding.computeUnsignedVIntSize: 7 value bits per byte up to 9 bytes.
  const std::vector<std::pair<std::uint64_t, std::string>> cases = {
      {0, "00"},
      {127, "7f"},
      {128, "8080"},
      {0x3fff, "bfff"},
      {0x4000, "c04000"},
      {0xffffffffffffffffULL, "ffffffffffffffffff"},
      {0x00ffffffffffffffULL, "feffffffffffffff"},
      {0x00ffffffffffffULL, "fcffffffffffff"},
      {0x0100000000000000ULL, "ff0100000000000000"}};
  for (const auto& [value, hex] : cases) {
    ByteVector out;
    PutCassandraUnsignedVInt(out, value);
    EXPECT_EQ(ToHex(out), hex) << value;
  }
}

void RoundTrip(IndexEntryForm form) {
  const KeyList keys = SomeKeys();
  const std::vector<std::int64_t> positions = {0, 100, 70000, 5'000'000'000};
  const std::vector<std::uint32_t> promoted = {0, 3, 200, 1};
  auto bytes = WriteIndexDb(keys, positions, form, promoted);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  IndexDb index;
  Status s = ReadIndexDbInto(*bytes, "Index.db", IndexKeyForm::kRaw, form, index);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(index.keys.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(
        std::equal(keys[i].begin(), keys[i].end(), index.keys[i].begin(), index.keys[i].end()));
    EXPECT_EQ(index.positions[i], positions[i]);
  }
  // Every proper prefix is damaged: a Corrupt status naming an offset inside the file.
  for (std::size_t cut = 1; cut < bytes->size(); ++cut) {
    IndexDb partial;
    Status t =
        ReadIndexDbInto(ByteSpan(*bytes).first(cut), "Index.db", IndexKeyForm::kRaw, form, partial);
    // A cut exactly between entries is a shorter, valid file.
    if (t.ok()) {
      EXPECT_LT(partial.keys.size(), keys.size()) << cut;
      continue;
    }
    EXPECT_EQ(t.code(), StatusCode::kCorrupt) << cut;
    ASSERT_TRUE(t.offset().has_value()) << t.ToString();
    EXPECT_LE(*t.offset(), cut) << t.ToString();
  }
}

TEST(CassandraMurmur3IndexDb, RoundTripLongForm) {
  RoundTrip(IndexEntryForm::kLongPositionAndPromoted);
}
TEST(CassandraMurmur3IndexDb, RoundTripVIntForm) {
  RoundTrip(IndexEntryForm::kVIntPositionAndPromoted);
}

TEST(CassandraMurmur3IndexDb, DamagedFields) {
  KeyList keys;
  keys.Add(std::string_view("k"));
  const std::vector<std::int64_t> pos = {8};
  // A negative promoted size (i32 form).
  auto bytes = WriteIndexDb(keys, pos, IndexEntryForm::kLongPositionAndPromoted);
  ASSERT_TRUE(bytes.ok());
  ByteVector bad = *bytes;
  bad[2 + 1 + 8] = 0x80;  // the size's high byte
  IndexDb index;
  Status s = ReadIndexDbInto(bad, "Index.db", IndexKeyForm::kRaw,
                             IndexEntryForm::kLongPositionAndPromoted, index);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  // A promoted size beyond the file.
  ByteVector big = *bytes;
  big[2 + 1 + 8 + 3] = 0x40;
  index = {};
  s = ReadIndexDbInto(big, "Index.db", IndexKeyForm::kRaw, IndexEntryForm::kLongPositionAndPromoted,
                      index);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  // A vint size above Integer.MAX_VALUE.
  ByteVector v;
  v.push_back(0);
  v.push_back(1);
  v.push_back('k');
  PutCassandraUnsignedVInt(v, 8);
  PutCassandraUnsignedVInt(v, 0x80000000ULL);
  index = {};
  s = ReadIndexDbInto(v, "Index.db", IndexKeyForm::kRaw, IndexEntryForm::kVIntPositionAndPromoted,
                      index);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_EQ(s.offset(), std::optional<std::uint64_t>(4)) << s.ToString();
}

}  // namespace
}  // namespace bloomcodec::cassandra
