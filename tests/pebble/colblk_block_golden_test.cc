// Whole columnar blocks as Pebble writes them (formats/pebble/FORMAT.md §6, colblk_goldens.h):
// our encoders rebuild each from its inputs byte for byte, and our decoders read back the keys,
// values and spans that went in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pebble/colblk/data_block.h"
#include "pebble/colblk/data_block_encoder.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/colblk_goldens.h"
#include "support/test_support.h"

namespace bloomcodec::pebble::colblk {
namespace {

using ::bloomcodec::testing::HexBytes;
using goldens::Squeeze;

constexpr std::uint8_t kDel = 0, kSet = 1, kRangeDel = 15, kRangeKeyDel = 19, kRangeKeySet = 21;
std::uint64_t Trailer(std::uint64_t seq, std::uint8_t kind) { return seq << 8 | kind; }

const BlockPlace kPlace{"golden.sst", 0, false, "block"};

struct Row {
  std::string key;
  std::uint64_t trailer;
  std::string value;
  bool obsolete = false;
};

std::string Hex(const Result<ByteVector>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? ToHex(r.value()) : "";
}

std::string Encode(const KeySchema& schema, const std::vector<Row>& rows) {
  Result<DataBlockEncoder> enc = DataBlockEncoder::Make(schema, false);
  EXPECT_TRUE(enc.ok());
  for (const Row& r : rows) {
    DataBlockRow row;
    row.user_key = AsBytes(r.key);
    row.trailer = r.trailer;
    row.value = AsBytes(r.value);
    row.obsolete = r.obsolete;
    const Status s = enc->Add(row);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return Hex(enc->Finish(enc->rows()));
}

// An engine key: roach key, 0x00, then the version and its length + 1 when there is one.
std::string Engine(const std::string& roach, const std::string& version_hex = "") {
  std::string k = roach;
  k.push_back('\0');
  if (!version_hex.empty()) {
    const ByteVector v = HexBytes(version_hex);
    k.append(v.begin(), v.end());
    k.push_back(static_cast<char>(v.size() + 1));
  }
  return k;
}

const std::vector<Row>& Crdb1Rows() {
  static const std::vector<Row> rows = {
      {Engine("foo"), Trailer(3, kSet), "nosuffix3"},
      {Engine("foo"), Trailer(2, kSet), "nosuffix2"},
      {Engine("foo"), Trailer(1, kSet), "nosuffix1"},
      {Engine("foo", "0102030405060708091011121314151617"), Trailer(1, kSet), "lockkey"},
      {Engine("foo", "010203040506070801020304"), Trailer(2, kSet), "mvcclogical2"},
      {Engine("foo", "01020304050607080102030401"), Trailer(1, kSet), "mvcclogical1"},
      {Engine("foo", "010203040506070800000000"), Trailer(4, kSet), "mvcc4"},
      {Engine("foo", "0102030405060708"), Trailer(3, kSet), "mvcc3"},
      {Engine("foo", "01020304050607080000000001"), Trailer(2, kSet), "mvcc2"},
      {Engine("foo", "0102030405060708"), Trailer(1, kSet), "mvcc1"},
      {Engine(std::string("foo\0", 4), "0102030405060708"), Trailer(1, kSet), "mvcc1"},
      {Engine("fop"), Trailer(1, kSet), "foo"},
      {Engine("x"), Trailer(1, kSet), "x"},
  };
  return rows;
}

TEST(PebbleDataBlock, EncoderWritesPebblesBlocks) {
  EXPECT_EQ(Encode(DefaultKeySchema(), {{"a", Trailer(1, kSet), "a"}, {"b", Trailer(2, kDel), ""}}),
            Squeeze(goldens::kTwoKeysDataBlock));
  EXPECT_EQ(Encode(DefaultKeySchema(), {{"a", Trailer(1, kSet), "apple"},
                                        {"b", Trailer(1, kSet), "banana"},
                                        {"c", Trailer(1, kSet), "cantelope"}}),
            Squeeze(goldens::kThreeFruitsDataBlock));
  EXPECT_EQ(Encode(Crdb1KeySchema(), Crdb1Rows()), Squeeze(goldens::kCrdb1DataBlock));
}

TEST(PebbleDataBlock, DecodesTheTwoKeyBlock) {
  const ByteVector bytes = HexBytes(Squeeze(goldens::kTwoKeysDataBlock));
  const KeySchema schema = DefaultKeySchema();
  Result<DataBlock> b = DataBlock::Decode(bytes, schema, false, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->rows(), 2u);
  EXPECT_EQ(b->maximum_key_length(), 1u);
  DataBlockIterator it(*b);
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(AsChars(it.user_key()), "a");
  EXPECT_EQ(it.trailer(), Trailer(1, kSet));
  EXPECT_EQ(AsChars(it.value()), "a");
  it.Next();
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(AsChars(it.user_key()), "b");
  EXPECT_EQ(it.trailer(), Trailer(2, kDel));
  EXPECT_TRUE(it.value().empty());
  EXPECT_TRUE(b->prefix_changed(0) && b->prefix_changed(1));
  EXPECT_FALSE(b->is_obsolete(1) || b->is_value_external(0));
  it.Next();
  EXPECT_FALSE(it.Valid());
  EXPECT_TRUE(VerifyDataBlock(*b).ok());
}

TEST(PebbleDataBlock, Crdb1KeysAreReassembledAsPebbleDoes) {
  const ByteVector bytes = HexBytes(Squeeze(goldens::kCrdb1DataBlock));
  const KeySchema schema = Crdb1KeySchema();
  Result<DataBlock> b = DataBlock::Decode(bytes, schema, false, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->schema_header(), 7);
  EXPECT_EQ(b->maximum_key_length(), 22u);
  // A 13-byte version comes back as 12 bytes, a zero logical time is dropped.
  const std::vector<std::string> keys = {Engine("foo"),
                                         Engine("foo"),
                                         Engine("foo"),
                                         Engine("foo", "0102030405060708091011121314151617"),
                                         Engine("foo", "010203040506070801020304"),
                                         Engine("foo", "010203040506070801020304"),
                                         Engine("foo", "0102030405060708"),
                                         Engine("foo", "0102030405060708"),
                                         Engine("foo", "0102030405060708"),
                                         Engine("foo", "0102030405060708"),
                                         Engine(std::string("foo\0", 4), "0102030405060708"),
                                         Engine("fop"),
                                         Engine("x")};
  std::uint32_t row = 0;
  for (DataBlockIterator it(*b); it.Valid(); it.Next(), ++row) {
    ASSERT_LT(row, keys.size());
    EXPECT_EQ(ToHex(it.user_key()), ToHex(AsBytes(keys[row]))) << row;
    EXPECT_EQ(it.trailer(), Crdb1Rows()[row].trailer) << row;
    EXPECT_EQ(AsChars(it.value()), Crdb1Rows()[row].value) << row;
    EXPECT_EQ(b->prefix_changed(row), row == 0 || row >= 10) << row;
  }
  EXPECT_EQ(row, 13u);
  // Pebble's own example marks no key obsolete, though rows 1 and 2 repeat row 0's user key:
  // Pebble's DataBlockValidator refuses it, and so do we.
  const Status s = VerifyDataBlock(*b);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("obsolete mark"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("row 1"), std::string::npos) << s.ToString();
}

TEST(PebbleDataBlock, Crdb1WithObsoleteMarksVerifies) {
  std::vector<Row> rows = Crdb1Rows();
  for (std::size_t i : {1, 2, 5, 7, 8, 9}) rows[i].obsolete = true;
  const ByteVector bytes = HexBytes(Encode(Crdb1KeySchema(), rows));
  const KeySchema schema = Crdb1KeySchema();
  Result<DataBlock> b = DataBlock::Decode(bytes, schema, false, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const Status s = VerifyDataBlock(*b);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Pebble's table writer finishes a block without the key that overflowed it: the header's
// maximum key length still counts that key, and so does ours.
TEST(PebbleDataBlock, FinishWithoutTheLastKeyKeepsItsLength) {
  Result<DataBlockEncoder> enc = DataBlockEncoder::Make(DefaultKeySchema(), false);
  ASSERT_TRUE(enc.ok());
  for (const char* k : {"a", "b", "cccccc"}) {
    DataBlockRow row;
    row.user_key = AsBytes(k);
    row.trailer = Trailer(1, kSet);
    row.value = AsBytes("v");
    ASSERT_TRUE(enc->Add(row).ok());
  }
  Result<ByteVector> bytes = enc->Finish(2);
  ASSERT_TRUE(bytes.ok());
  const KeySchema schema = DefaultKeySchema();
  Result<DataBlock> b = DataBlock::Decode(bytes.value(), schema, false, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->rows(), 2u);
  EXPECT_EQ(b->maximum_key_length(), 6u);
  EXPECT_TRUE(VerifyDataBlock(*b).ok());
  EXPECT_FALSE(enc->Finish(4).ok());
}

TEST(PebbleIndexBlock, WriterAndReaderAgreeWithPebble) {
  struct Entry {
    const char* separator;
    std::uint64_t offset, length;
    const char* props;
  };
  const std::vector<Entry> entries = {{"apple", 24, 24, "bp1"},    {"applied", 141, 112, "bp2"},
                                      {"atone", 195, 49, "bp3"},   {"bacitracin", 412, 212, ""},
                                      {"banana", 632, 215, "bp5"}, {"bonifide", 963, 326, "bp6"}};
  IndexBlockWriter w;
  EXPECT_EQ(Hex(w.Finish(0)), Squeeze(goldens::kEmptyIndexBlock));
  for (const Entry& e : entries) {
    w.AddBlockHandle(AsBytes(e.separator), e.offset, e.length, AsBytes(e.props));
  }
  EXPECT_EQ(Hex(w.Finish(6)), Squeeze(goldens::kSixEntryIndexBlock));
  const ByteVector bytes = HexBytes(Squeeze(goldens::kSixEntryIndexBlock));
  Result<IndexBlock> b = IndexBlock::Decode(bytes, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->rows(), entries.size());
  for (std::uint32_t i = 0; i < b->rows(); ++i) {
    EXPECT_EQ(AsChars(b->separator(i)), entries[i].separator);
    EXPECT_EQ(b->offset(i), entries[i].offset);
    EXPECT_EQ(b->length(i), entries[i].length);
    EXPECT_EQ(AsChars(b->block_properties(i)), entries[i].props);
  }
  // "bp1" is short ID 'b' with a varint length 'p' (112) past its slice: not block properties.
  EXPECT_FALSE(VerifyIndexBlock(*b, KeyComparer::kBytewise).ok());
  const ByteVector empty = HexBytes(Squeeze(goldens::kEmptyIndexBlock));
  Result<IndexBlock> e = IndexBlock::Decode(empty, kPlace);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->rows(), 0u);
  EXPECT_TRUE(VerifyIndexBlock(*e, KeyComparer::kBytewise).ok());
}

TEST(PebbleKeyValueBlock, MetaIndexAsPebbleWritesIt) {
  KeyValueBlockWriter w;
  w.Add(AsBytes("properties"), HexBytes("320d"));
  w.Add(AsBytes("index"), HexBytes("410d"));
  EXPECT_EQ(Hex(w.Finish(2)), Squeeze(goldens::kMetaIndexBlock));
  const ByteVector bytes = HexBytes(Squeeze(goldens::kMetaIndexBlock));
  Result<KeyValueBlock> b = KeyValueBlock::Decode(bytes, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->rows(), 2u);
  EXPECT_EQ(AsChars(b->key(1)), "index");
  EXPECT_EQ(ToHex(b->value(0)), "320d");
  // Pebble's test wrote its two entries unsorted; a table's metaindex is sorted.
  EXPECT_FALSE(VerifyKeyValueBlock(*b).ok());
  KeyValueBlockWriter sorted;
  sorted.Add(AsBytes("index"), HexBytes("410d"));
  sorted.Add(AsBytes("properties"), HexBytes("320d"));
  Result<ByteVector> s = sorted.Finish(2);
  ASSERT_TRUE(s.ok());
  Result<KeyValueBlock> sb = KeyValueBlock::Decode(s.value(), kPlace);
  ASSERT_TRUE(sb.ok());
  EXPECT_TRUE(VerifyKeyValueBlock(*sb).ok());
}

struct Span {
  std::string start, end;
  std::vector<KeyspanKey> keys;
};

std::string WriteSpans(const std::vector<Span>& spans) {
  KeyspanBlockWriter w;
  for (const Span& s : spans) w.AddSpan(AsBytes(s.start), AsBytes(s.end), s.keys);
  return Hex(w.Finish());
}

TEST(PebbleKeyspanBlock, WriterAndReaderAgreeWithPebble) {
  auto del = [](std::uint64_t seq) { return KeyspanKey{Trailer(seq, kRangeDel), {}, {}}; };
  EXPECT_EQ(WriteSpans({{"a", "b", {del(0)}},
                        {"b", "c", {del(100), del(20), del(0)}},
                        {"c", "d", {del(100), del(0)}},
                        {"d", "e", {del(0)}}}),
            Squeeze(goldens::kRangeDelKeyspanBlock));
  EXPECT_EQ(WriteSpans({{"a", "b", {del(10)}}}), Squeeze(goldens::kOneRangeDelBlock));
  EXPECT_EQ(WriteSpans({{"a", "b", {{Trailer(10, kRangeKeySet), AsBytes("@5"), AsBytes("foo")}}},
                        {"b", "c", {{Trailer(9, kRangeKeyDel), {}, {}}}}}),
            Squeeze(goldens::kRangeKeyBlock));

  const ByteVector bytes = HexBytes(Squeeze(goldens::kRangeDelKeyspanBlock));
  Result<KeyspanBlock> b = KeyspanBlock::Decode(bytes, kPlace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->boundary_count(), 5u);
  ASSERT_EQ(b->rows(), 7u);
  const std::vector<std::uint64_t> starts = {0, 1, 4, 6, 7};
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(std::string(1, static_cast<char>('a' + i)), AsChars(b->boundary_key(i)));
    EXPECT_EQ(b->boundary_start(i), starts[i]);
  }
  EXPECT_EQ(b->trailer(1), Trailer(100, kRangeDel));
  EXPECT_TRUE(VerifyKeyspanBlock(*b, KeyComparer::kBytewise).ok());

  const ByteVector keys = HexBytes(Squeeze(goldens::kRangeKeyBlock));
  Result<KeyspanBlock> k = KeyspanBlock::Decode(keys, kPlace);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(AsChars(k->suffix(0)), "@5");
  EXPECT_EQ(AsChars(k->value(0)), "foo");
  EXPECT_TRUE(k->suffix(1).empty());
  EXPECT_TRUE(VerifyKeyspanBlock(*k, KeyComparer::kBytewise).ok());
}

}  // namespace
}  // namespace bloomcodec::pebble::colblk
