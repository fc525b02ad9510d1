// Pebble's columnar blocks (formats/pebble/colblk). Byte 0 picks what the rest is decoded as:
//   0 / 1  a data block under the default key schema / crdb1; 2 / 3 the same with Pebblev8's
//          tiering columns; 4 an index block; 5 a keyspan block; 6 a key-value block;
//   7      one column on its own: byte 1 picks the type (bool, uint, bytes, prefixbytes), bytes
//          2..3 the rows (LE u16), the rest is the column.
// Decoding never reads outside the input, and every refusal names the source and an offset inside
// the block. Where decoding succeeds the rows are walked and verified; a block the verifier accepts
// is written again by our encoders from what was read, and that block must read back the same.
// With BLOOMCODEC_PEBBLE_COLBLK_FUZZER_SEEDS=DIR it writes its seeds there and exits instead.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "pebble/colblk/bitmap.h"
#include "pebble/colblk/data_block.h"
#include "pebble/colblk/data_block_encoder.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/colblk/prefix_bytes.h"

using namespace bloomcodec;
using namespace bloomcodec::pebble::colblk;

namespace {

constexpr std::string_view kSource = "fuzz.sst";
const BlockPlace kPlace{kSource, 0, false, "block"};
// Blocks other than data blocks can claim any number of rows in a few bytes (width-0 columns);
// walks stop here.
constexpr std::uint32_t kMaxWalk = 1 << 16;

bool Same(ByteSpan a, ByteSpan b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

void RoundTripData(const DataBlock& block, const KeySchema& schema) {
  Result<DataBlockEncoder> enc = DataBlockEncoder::Make(schema, block.tiering());
  FUZZ_CHECK(enc.ok());
  std::vector<ByteVector> keys;
  for (DataBlockIterator it(block); it.Valid(); it.Next()) {
    const std::uint32_t r = it.row();
    keys.emplace_back(it.user_key().begin(), it.user_key().end());
    DataBlockRow row;
    row.user_key = it.user_key();
    row.trailer = it.trailer();
    row.value = it.value();
    row.obsolete = block.is_obsolete(r);
    // Row 0's bit carries the comparison with the previous block's last key: keep it as decoded.
    if (r == 0) row.first_prefix_changed = block.prefix_changed(0);
    if (block.is_value_external(r)) {
      row.external_prefix = it.value()[0];
      row.value = it.value().subspan(1);
    }
    if (block.tiering()) {
      row.tiering = {true, block.tiering_span_id(r), block.tiering_attribute(r)};
      row.secondary_blob_handle = block.secondary_blob_handle(r);
    }
    FUZZ_CHECK(enc->Add(row).ok());
  }
  Result<ByteVector> again = enc->Finish(enc->rows());
  FUZZ_CHECK(again.ok());
  Result<DataBlock> back = DataBlock::Decode(again.value(), schema, block.tiering(), kPlace);
  FUZZ_CHECK(back.ok() && back->rows() == block.rows());
  FUZZ_CHECK(VerifyDataBlock(*back).ok());
  for (DataBlockIterator it(*back); it.Valid(); it.Next()) {
    const std::uint32_t r = it.row();
    FUZZ_CHECK(Same(it.user_key(), keys[r]));
    FUZZ_CHECK(it.trailer() == block.trailer(r) && Same(it.value(), block.value(r)));
    FUZZ_CHECK(back->is_obsolete(r) == block.is_obsolete(r));
    FUZZ_CHECK(back->is_value_external(r) == block.is_value_external(r));
    FUZZ_CHECK(back->prefix_changed(r) == block.prefix_changed(r));
  }
}

void Data(ByteSpan bytes, bool crdb1, bool tiering) {
  static const KeySchema kDefault = DefaultKeySchema();
  static const KeySchema kCrdb1 = Crdb1KeySchema();
  const KeySchema& schema = crdb1 ? kCrdb1 : kDefault;
  Result<DataBlock> block = DataBlock::Decode(bytes, schema, tiering, kPlace);
  if (!block.ok()) {
    fuzz::CheckNamesSourceAndOffset(block.status(), kSource, bytes.size());
    return;
  }
  // A data block's rows are bounded by its size (a prefix-changed bit each): walk them all, by
  // rows and from random positions.
  FUZZ_CHECK(block->rows() <= 8 * bytes.size());
  std::size_t total = 0;
  for (DataBlockIterator it(*block); it.Valid(); it.Next()) total += it.user_key().size();
  DataBlockIterator at(*block);
  at.SeekToRow(block->rows() / 2);
  (void)total;
  const Status verified = VerifyDataBlock(*block);
  fuzz::CheckNamesSourceAndOffset(verified, kSource, bytes.size());
  if (verified.ok()) RoundTripData(*block, schema);
}

void Index(ByteSpan bytes) {
  Result<IndexBlock> block = IndexBlock::Decode(bytes, kPlace);
  if (!block.ok()) return fuzz::CheckNamesSourceAndOffset(block.status(), kSource, bytes.size());
  const Status verified = VerifyIndexBlock(*block, KeyComparer::kBytewise);
  fuzz::CheckNamesSourceAndOffset(verified, kSource, bytes.size());
  if (!verified.ok() || block->rows() > kMaxWalk) return;
  IndexBlockWriter w;
  for (std::uint32_t r = 0; r < block->rows(); ++r) {
    w.AddBlockHandle(block->separator(r), block->offset(r), block->length(r),
                     block->block_properties(r));
  }
  Result<ByteVector> again = w.Finish(w.rows());
  FUZZ_CHECK(again.ok());
  Result<IndexBlock> back = IndexBlock::Decode(again.value(), kPlace);
  FUZZ_CHECK(back.ok() && back->rows() == block->rows());
  for (std::uint32_t r = 0; r < block->rows(); ++r) {
    FUZZ_CHECK(Same(back->separator(r), block->separator(r)));
    FUZZ_CHECK(back->offset(r) == block->offset(r) && back->length(r) == block->length(r));
    FUZZ_CHECK(Same(back->block_properties(r), block->block_properties(r)));
  }
}

void Keyspan(ByteSpan bytes) {
  Result<KeyspanBlock> block = KeyspanBlock::Decode(bytes, kPlace);
  if (!block.ok()) return fuzz::CheckNamesSourceAndOffset(block.status(), kSource, bytes.size());
  const Status verified = VerifyKeyspanBlock(*block, KeyComparer::kBytewise);
  fuzz::CheckNamesSourceAndOffset(verified, kSource, bytes.size());
  if (!verified.ok() || block->rows() > kMaxWalk) return;
  KeyspanBlockWriter w;
  std::vector<KeyspanKey> keys;
  for (std::uint32_t i = 0; i + 1 < block->boundary_count(); ++i) {
    keys.clear();
    for (std::uint64_t k = block->boundary_start(i); k < block->boundary_start(i + 1); ++k) {
      keys.push_back({block->trailer(k), block->suffix(k), block->value(k)});
    }
    if (!keys.empty()) w.AddSpan(block->boundary_key(i), block->boundary_key(i + 1), keys);
  }
  Result<ByteVector> again = w.Finish();
  FUZZ_CHECK(again.ok());
  Result<KeyspanBlock> back = KeyspanBlock::Decode(again.value(), kPlace);
  FUZZ_CHECK(back.ok() && back->rows() == block->rows());
  FUZZ_CHECK(VerifyKeyspanBlock(*back, KeyComparer::kBytewise).ok());
  for (std::uint32_t k = 0; k < block->rows(); ++k) {
    FUZZ_CHECK(back->trailer(k) == block->trailer(k));
    FUZZ_CHECK(Same(back->suffix(k), block->suffix(k)) && Same(back->value(k), block->value(k)));
  }
}

void KeyValue(ByteSpan bytes) {
  Result<KeyValueBlock> block = KeyValueBlock::Decode(bytes, kPlace);
  if (!block.ok()) return fuzz::CheckNamesSourceAndOffset(block.status(), kSource, bytes.size());
  const Status verified = VerifyKeyValueBlock(*block);
  fuzz::CheckNamesSourceAndOffset(verified, kSource, bytes.size());
  if (!verified.ok() || block->rows() > kMaxWalk) return;
  KeyValueBlockWriter w;
  for (std::uint32_t r = 0; r < block->rows(); ++r) w.Add(block->key(r), block->value(r));
  Result<ByteVector> again = w.Finish(w.rows());
  FUZZ_CHECK(again.ok());
  Result<KeyValueBlock> back = KeyValueBlock::Decode(again.value(), kPlace);
  FUZZ_CHECK(back.ok() && back->rows() == block->rows());
  for (std::uint32_t r = 0; r < block->rows(); ++r) {
    FUZZ_CHECK(Same(back->key(r), block->key(r)) && Same(back->value(r), block->value(r)));
  }
}

void Column(ByteSpan input) {
  if (input.size() < 3) return;
  const int type = input[0] % 4;
  const std::uint32_t rows = input[1] | std::uint32_t{input[2]} << 8;
  const ByteSpan bytes = input.subspan(3);
  ColumnBytes c = StandaloneColumn(bytes, 0, static_cast<std::uint32_t>(bytes.size()));
  c.place = kPlace;
  std::uint64_t sum = 0;
  Status s;
  if (type == 0) {
    Result<Bitmap> b = DecodeBitmapColumn(c, rows);
    s = b.ok() ? b->Verify(c) : b.status();
    if (b.ok()) sum += b->NextSet(0) + b->At(rows / 2);
  } else if (type == 1) {
    Result<Uints> u = DecodeUintColumn(c, rows);
    s = u.status();
    for (std::uint32_t i = 0; u.ok() && i < rows; ++i) sum += u->At(i);
  } else if (type == 2) {
    Result<RawBytes> b = DecodeRawBytesColumn(c, rows);
    s = b.status();
    for (std::uint32_t i = 0; b.ok() && i < rows; ++i) sum += b->At(i).size();
  } else {
    Result<PrefixBytes> p = DecodePrefixBytesColumn(c, rows);
    s = p.status();
    KeyBuffer key;
    PrefixBytesCursor cursor;
    for (std::uint32_t i = 0; p.ok() && i < rows; ++i) {
      i == 0 ? cursor.SetAt(*p, 0, key) : cursor.SetNext(*p, key);
      // Random access walks back over a bundle's repeats (up to 2^31 rows): sampled.
      if (i < 256 || i % 1024 == 0) {
        ByteVector whole;
        p->AppendRow(i, whole);
        FUZZ_CHECK(Same(whole, ByteSpan(key.data(), cursor.length())));
      }
    }
  }
  (void)sum;
  fuzz::CheckNamesSourceAndOffset(s, kSource, bytes.size());
}

// ---- seeds: fuzz/seed-corpus asks for them (no fixture holds a columnar block) -------------------

bool Write(const std::string& dir, const std::string& name, std::uint8_t selector,
           const Result<ByteVector>& block) {
  if (!block.ok()) {
    std::fprintf(stderr, "pebble_colblk_fuzzer seeds: %s: %s\n", name.c_str(),
                 block.status().ToString().c_str());
    return false;
  }
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out.put(static_cast<char>(selector));
  out.write(reinterpret_cast<const char*>(block.value().data()),
            static_cast<std::streamsize>(block.value().size()));
  return static_cast<bool>(out);
}

std::string Engine(const std::string& roach, const std::string& version) {
  std::string k = roach + std::string(1, '\0') + version;
  if (!version.empty()) k.push_back(static_cast<char>(version.size() + 1));
  return k;
}

Result<ByteVector> EncodeDataBlock(const KeySchema& schema, bool tiering,
                                   const std::vector<std::string>& keys) {
  BLOOMCODEC_ASSIGN_OR_RETURN(DataBlockEncoder enc, DataBlockEncoder::Make(schema, tiering));
  std::uint64_t seq = 1000;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    DataBlockRow row;
    row.user_key = AsBytes(keys[i]);
    row.trailer = (seq-- << 8) | (i % 3 == 0 ? 0 : 1);
    row.value = AsBytes(keys[i]);
    row.obsolete = i > 0 && keys[i] == keys[i - 1];
    if (i % 4 == 3) row.external_prefix = 0x80;
    if (tiering) row.tiering = {true, i, i * 1000};
    BLOOMCODEC_RETURN_IF_ERROR(enc.Add(row));
  }
  return enc.Finish(enc.rows());
}

// Blocks made by our own encoders: the shapes of tests/pebble/colblk_goldens.h and a few more.
bool WriteSeeds(const std::string& dir) {
  bool ok = true;
  std::vector<std::string> words;
  for (const char* w : {"a", "apple", "applied", "apply", "b", "banana", "banana", "cherry"}) {
    words.push_back(w);
  }
  for (int i = 0; i < 40; ++i) words.push_back("key" + std::to_string(1000 + i));
  std::vector<std::string> engine;
  for (const char* r : {"foo", "foo", "fop", "table/1/", "x"}) {
    engine.push_back(Engine(r, ""));
    engine.push_back(Engine(r, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)));
    engine.push_back(Engine(r, std::string("\x01\x02\x03\x04\x05\x06\x07\x07\0\0\0\x05", 12)));
    engine.push_back(Engine(r, "lock-table-key-17"));
  }
  std::sort(engine.begin(), engine.end(), [](const std::string& a, const std::string& b) {
    return cockroach::Compare(AsBytes(a), AsBytes(b)) < 0;
  });
  engine.erase(std::unique(engine.begin(), engine.end()), engine.end());
  for (int tiering = 0; tiering < 2; ++tiering) {
    const std::string t = tiering ? "_tiering" : "";
    ok &= Write(dir, "data_default" + t, static_cast<std::uint8_t>(2 * tiering),
                EncodeDataBlock(DefaultKeySchema(), tiering, words));
    ok &= Write(dir, "data_crdb1" + t, static_cast<std::uint8_t>(2 * tiering + 1),
                EncodeDataBlock(Crdb1KeySchema(), tiering, engine));
  }
  IndexBlockWriter index;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < words.size(); i += 3, at += 4096 + 5) {
    index.AddBlockHandle(AsBytes(words[i]), at, 4096,
                         AsBytes(i % 2 ? std::string_view("\x00\x01z", 3) : ""));
  }
  ok &= Write(dir, "index", 4, index.Finish(index.rows()));
  ok &= Write(dir, "index_empty", 4, IndexBlockWriter().Finish(0));
  KeyspanBlockWriter spans;
  spans.AddSpan(AsBytes("a"), AsBytes("c"), {{10 << 8 | 15, {}, {}}, {4 << 8 | 15, {}, {}}});
  spans.AddSpan(AsBytes("c"), AsBytes("f"), {{9 << 8 | 21, AsBytes("@5"), AsBytes("v")}});
  spans.AddSpan(AsBytes("m"), AsBytes("z"), {{3 << 8 | 19, {}, {}}});
  ok &= Write(dir, "keyspan", 5, spans.Finish());
  KeyValueBlockWriter meta;
  meta.Add(AsBytes("fullfilter.rocksdb.BuiltinBloomFilter"), AsBytes("\x90\x01\x20"));
  meta.Add(AsBytes("rocksdb.properties"), AsBytes("\xb0\x01\xf2\x03"));
  ok &= Write(dir, "metaindex", 6, meta.Finish(meta.rows()));
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* seeds = std::getenv("BLOOMCODEC_PEBBLE_COLBLK_FUZZER_SEEDS")) {
    std::exit(WriteSeeds(seeds) ? 0 : 1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteSpan bytes(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0:
    case 1:
    case 2:
    case 3: Data(bytes, data[0] % 2 == 1, data[0] % 8 >= 2); break;
    case 4: Index(bytes); break;
    case 5: Keyspan(bytes); break;
    case 6: KeyValue(bytes); break;
    default: Column(bytes); break;
  }
  return 0;
}
