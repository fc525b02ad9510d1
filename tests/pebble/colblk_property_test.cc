// Random columnar blocks: what our encoders write, our decoders read back exactly (keys, values,
// trailers, marks), and the verifier accepts; prefixbytes and uint columns also equal a plain
// restatement of Pebble's writer rules written here independently (reference encoders).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "leveldb/rc_check.h"
#include "pebble/colblk/bitmap.h"
#include "pebble/colblk/data_block.h"
#include "pebble/colblk/data_block_encoder.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/colblk/prefix_bytes.h"
#include "pebble/colblk/uints.h"

namespace bloomcodec::pebble::colblk {
namespace {

using ::bloomcodec::testing::CheckProperty;

const BlockPlace kPlace{"random.sst", 0, false, "block"};

// ---- reference encoders: the rules of FORMAT.md §6.3 and §6.5, restated plainly ---------------

unsigned RefBytes(std::uint64_t v) {
  unsigned n = 0;
  while (v != 0) v >>= 8, ++n;
  return n <= 2 ? n : (n <= 4 ? 4 : 8);
}

std::uint8_t RefUintEncoding(std::uint64_t min, std::uint64_t max, std::uint64_t rows) {
  unsigned w = RefBytes(max - min);
  if (w == 8) return 8;
  bool delta = w < 8 && max > (w == 0 ? 0 : (std::uint64_t{1} << (8 * w)) - 1);
  if (delta && rows < 8 && rows * (RefBytes(max) - w) < 8) {
    w = RefBytes(max);
    delta = false;
  }
  return static_cast<std::uint8_t>(w | (delta ? 0x80 : 0));
}

std::size_t Lcp(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

// A prefixbytes column at block position 0 (so that alignment counts from its first byte).
ByteVector RefPrefixBytes(const std::vector<std::string>& keys, unsigned shift) {
  const std::size_t n = keys.size(), bundle = std::size_t{1} << shift;
  std::string data;
  std::vector<std::uint64_t> offsets;
  if (n == 1) {
    data = keys[0];
    offsets.assign(3, data.size());
  } else {
    std::size_t shared = keys[0].size();
    for (std::size_t i = 1; i < n; ++i) shared = std::min(shared, Lcp(keys[i - 1], keys[i]));
    shared = std::min<std::size_t>(shared, 65535);
    data = keys[0].substr(0, shared);
    offsets.push_back(data.size());
    for (std::size_t first = 0; first < n; first += bundle) {
      const std::size_t last = std::min(n, first + bundle);
      std::size_t prefix = keys[first].size();
      for (std::size_t i = first + 1; i < last; ++i)
        prefix = std::min(prefix, Lcp(keys[i - 1], keys[i]));
      prefix = std::min<std::size_t>(prefix, 65535);
      data += keys[first].substr(shared, prefix - shared);
      offsets.push_back(data.size());
      for (std::size_t i = first; i < last; ++i) {
        if (i > first && keys[i] == keys[i - 1]) {
          offsets.push_back(data.size());
          continue;
        }
        data += keys[i].substr(prefix);
        offsets.push_back(data.size());
      }
    }
  }
  const unsigned w = RefBytes(data.size());
  ByteVector out = {static_cast<std::uint8_t>(shift), static_cast<std::uint8_t>(w)};
  while (out.size() % w != 0) out.push_back(0);
  for (std::uint64_t o : offsets) {
    for (unsigned i = 0; i < w; ++i) out.push_back(static_cast<std::uint8_t>(o >> (8 * i)));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// ---- generators --------------------------------------------------------------------------------

// Sorted byte strings over a small alphabet: long runs of shared prefixes, repeats, the empty
// string sometimes first.
std::vector<std::string> SortedKeys(std::size_t n, bool allow_empty) {
  std::vector<std::string> keys;
  const std::string stem = *rc::gen::container<std::string>(rc::gen::element('a', 'b'));
  for (std::size_t i = 0; i < n; ++i) {
    std::string k = stem.substr(0, *rc::gen::inRange<std::size_t>(0, stem.size() + 1));
    k += *rc::gen::container<std::string>(rc::gen::element('a', 'b', 'c', '\0', '\xff'));
    keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  if (!allow_empty) {
    for (auto& k : keys) k.push_back('k');
    std::sort(keys.begin(), keys.end());
  }
  return keys;
}

std::uint64_t RandomUint() {
  const int bits = *rc::gen::element(0, 1, 7, 8, 9, 16, 17, 31, 32, 33, 63, 64);
  const std::uint64_t v = *rc::gen::arbitrary<std::uint64_t>();
  return bits == 64 ? v : v & ((std::uint64_t{1} << bits) - 1);
}

// ---- columns -----------------------------------------------------------------------------------

TEST(PebbleColblkProperty, UintColumnsRoundTrip) {
  CheckProperty(300, 100, [] {
    const bool default_zero = *rc::gen::arbitrary<bool>();
    const std::uint32_t n = *rc::gen::inRange<std::uint32_t>(1, 200);
    const std::uint64_t base = *rc::gen::element<std::uint64_t>(0, 1000, 1ull << 40);
    std::vector<std::uint64_t> values(n);
    UintBuilder b(default_zero);
    for (std::uint32_t i = 0; i < n; ++i) {
      values[i] = *rc::gen::arbitrary<bool>() ? base : base + RandomUint() % 70000;
      if (*rc::gen::inRange(0, 4) == 0) values[i] = RandomUint();
      if (!default_zero || values[i] != 0) b.Set(i, values[i]);
    }
    const std::uint32_t rows = *rc::gen::arbitrary<bool>() && n > 1 ? n - 1 : n;
    const std::uint32_t offset = *rc::gen::inRange<std::uint32_t>(0, 9);
    ByteVector buf(b.Size(rows, offset));
    RC_ASSERT(b.Finish(rows, offset, buf.data()) == buf.size());
    if (rows == n) {
      std::uint64_t min = ~std::uint64_t{0}, max = 0;
      for (std::uint64_t v : values) min = std::min(min, v), max = std::max(max, v);
      RC_ASSERT(buf[offset] == RefUintEncoding(default_zero ? 0 : min, max, n));
    }
    Result<Uints> u = DecodeUintColumn(StandaloneColumn(buf, offset, buf.size()), rows);
    RC_ASSERT(u.ok());
    for (std::uint32_t i = 0; i < rows; ++i) RC_ASSERT(u->At(i) == values[i]);
  });
}

TEST(PebbleColblkProperty, PrefixBytesEqualTheReferenceAndRoundTrip) {
  CheckProperty(300, 60, [] {
    const unsigned shift = *rc::gen::inRange(0u, 6u);
    std::vector<std::string> keys =
        SortedKeys(*rc::gen::inRange<std::size_t>(1, 150), *rc::gen::arbitrary<bool>());
    if (*rc::gen::inRange(0, 20) == 0) {  // prefixes past 65535 bytes
      const std::string p(*rc::gen::inRange(65530, 65600), 'p');
      for (auto& k : keys) k = p + k;
    }
    PrefixBytesBuilder b(1u << shift);
    std::size_t data = 0;
    for (const auto& k : keys) b.Put(AsBytes(k)), data += k.size();
    RC_PRE(data > 0);  // Pebble's writer panics on a column without any byte
    for (std::uint32_t rows :
         {static_cast<std::uint32_t>(keys.size()), static_cast<std::uint32_t>(keys.size() - 1)}) {
      if (rows == 0) continue;
      const std::vector<std::string> first(keys.begin(), keys.begin() + rows);
      ByteVector buf(b.Size(rows, 0));
      RC_ASSERT(b.Finish(rows, 0, buf.data()) == buf.size());
      bool any = false;
      for (const auto& k : first) any = any || !k.empty();
      if (any) RC_ASSERT(buf == RefPrefixBytes(first, shift));
      Result<PrefixBytes> p = DecodePrefixBytesColumn(StandaloneColumn(buf, 0, buf.size()), rows);
      RC_ASSERT(p.ok());
      KeyBuffer key;
      PrefixBytesCursor cursor;
      for (std::uint32_t r = 0; r < rows; ++r) {
        r == 0 ? cursor.SetAt(*p, 0, key) : cursor.SetNext(*p, key);
        RC_ASSERT(AsChars(ByteSpan(key.data(), cursor.length())) == first[r]);
      }
      const std::uint32_t r = *rc::gen::inRange<std::uint32_t>(0, rows);
      PrefixBytesCursor at;
      at.SetAt(*p, r, key);
      RC_ASSERT(AsChars(ByteSpan(key.data(), at.length())) == first[r]);
    }
  });
}

TEST(PebbleColblkProperty, BitmapsRoundTrip) {
  CheckProperty(200, 100, [] {
    const std::uint32_t n = *rc::gen::inRange<std::uint32_t>(0, 9000);
    const int density = *rc::gen::inRange(0, 4);
    std::vector<bool> bits(n);
    BitmapBuilder b;
    for (std::uint32_t i = 0; i < n; ++i) {
      bits[i] = density > 0 && *rc::gen::inRange(0, 1 << (3 * density)) == 0;
      if (bits[i]) b.Set(i);
    }
    const std::uint32_t offset = *rc::gen::inRange<std::uint32_t>(0, 9);
    ByteVector buf(b.Size(n, offset));
    RC_ASSERT(b.Finish(n, offset, buf.data()) == buf.size());
    const ColumnBytes column = StandaloneColumn(buf, offset, buf.size());
    Result<Bitmap> d = DecodeBitmapColumn(column, n);
    RC_ASSERT(d.ok());
    RC_ASSERT(d->Verify(column).ok());
    std::uint32_t next = d->NextSet(0);
    for (std::uint32_t i = 0; i < n; ++i) {
      RC_ASSERT(d->At(i) == bits[i]);
      if (i == next) {
        RC_ASSERT(bits[i]);
        next = d->NextSet(i + 1);
      } else {
        RC_ASSERT(!bits[i]);
      }
    }
  });
}

// ---- data blocks -------------------------------------------------------------------------------

struct Model {
  std::string key;       // as added
  std::string expected;  // as Pebble reassembles it
  std::uint64_t trailer;
  std::string value;
  bool obsolete;
  std::optional<std::uint8_t> external;
  TieringMeta tiering;
  std::string secondary;
};

const std::vector<std::uint8_t> kPointKinds = {0, 1, 2, 7, 18, 23};

// Orders models as a table holds them, drops repeated internal keys, marks the shadowed keys
// obsolete, fills values.
void Finalize(std::vector<Model>& rows, KeyComparer cmp, bool tiering) {
  std::sort(rows.begin(), rows.end(), [&](const Model& a, const Model& b) {
    const int c = CompareUserKeys(cmp, AsBytes(a.key), AsBytes(b.key));
    return c != 0 ? c < 0 : a.trailer > b.trailer;
  });
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [&](const Model& a, const Model& b) {
                           return CompareUserKeys(cmp, AsBytes(a.key), AsBytes(b.key)) == 0 &&
                                  a.trailer == b.trailer;
                         }),
             rows.end());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Model& m = rows[i];
    m.value = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    m.obsolete = *rc::gen::inRange(0, 8) == 0;
    if (i > 0 && CompareUserKeys(cmp, AsBytes(m.key), AsBytes(rows[i - 1].key)) == 0 &&
        static_cast<std::uint8_t>(rows[i - 1].trailer) != 2) {
      m.obsolete = true;  // shadowed by the key before
    }
    if (*rc::gen::inRange(0, 5) == 0) m.external = static_cast<std::uint8_t>(0x80 | (i & 0x3f));
    if (tiering && *rc::gen::arbitrary<bool>()) m.tiering = {true, RandomUint(), RandomUint()};
    if (tiering && *rc::gen::inRange(0, 4) == 0) m.secondary = "blob" + std::to_string(i);
  }
}

void CheckDataBlock(const KeySchema& schema, std::vector<Model>& rows, bool tiering) {
  Finalize(rows, schema.comparer, tiering);
  RC_PRE(!rows.empty());
  Result<DataBlockEncoder> enc = DataBlockEncoder::Make(schema, tiering);
  RC_ASSERT(enc.ok());
  for (const Model& m : rows) {
    DataBlockRow r{AsBytes(m.key), m.trailer, AsBytes(m.value),    m.obsolete,
                   m.external,     m.tiering, AsBytes(m.secondary)};
    const Status s = enc->Add(r);
    RC_ASSERT(s.ok());
  }
  const std::uint32_t n =
      rows.size() > 1 && *rc::gen::arbitrary<bool>() ? rows.size() - 1 : rows.size();
  Result<ByteVector> bytes = enc->Finish(n);
  RC_ASSERT(bytes.ok());
  RC_ASSERT(bytes->size() == enc->Size(n));
  Result<DataBlock> b = DataBlock::Decode(bytes.value(), schema, tiering, kPlace);
  RC_ASSERT(b.ok());
  RC_ASSERT(b->rows() == n);
  const Status verified = VerifyDataBlock(*b);
  RC_ASSERT(verified.ok());
  std::uint32_t row = 0;
  for (DataBlockIterator it(*b); it.Valid(); it.Next(), ++row) {
    const Model& m = rows[row];
    RC_ASSERT(AsChars(it.user_key()) == m.expected);
    RC_ASSERT(it.trailer() == m.trailer);
    RC_ASSERT(b->is_obsolete(row) == m.obsolete);
    RC_ASSERT(b->is_value_external(row) == m.external.has_value());
    std::string value =
        m.external ? std::string(1, static_cast<char>(*m.external)) + m.value : m.value;
    RC_ASSERT(AsChars(it.value()) == value);
    if (tiering) {
      RC_ASSERT(b->tiering_span_id(row) == (m.tiering.set ? m.tiering.span_id : 0));
      RC_ASSERT(b->tiering_attribute(row) == (m.tiering.set ? m.tiering.attribute : 0));
      RC_ASSERT(AsChars(b->secondary_blob_handle(row)) == m.secondary);
    }
  }
  RC_ASSERT(row == n);
  DataBlockIterator at(*b);
  const std::uint32_t r = *rc::gen::inRange<std::uint32_t>(0, n);
  at.SeekToRow(r);
  RC_ASSERT(AsChars(at.user_key()) == rows[r].expected);
}

TEST(PebbleColblkProperty, DefaultSchemaDataBlocksRoundTrip) {
  CheckProperty(200, 60, [] {
    const bool tiering = *rc::gen::arbitrary<bool>();
    const auto keys = SortedKeys(*rc::gen::inRange<std::size_t>(1, 120), true);
    std::vector<Model> rows;
    for (const auto& k : keys) {
      const std::uint64_t seq = *rc::gen::inRange<std::uint64_t>(0, 1u << 20);
      rows.push_back({k, k, seq << 8 | *rc::gen::elementOf(kPointKinds), {}, false, {}, {}, {}});
    }
    CheckDataBlock(DefaultKeySchema(), rows, tiering);
  });
}

// A CockroachDB engine key of a random roach key and version class, and what Pebble's crdb1
// reader gives back for it.
Model EngineKey(const std::string& roach) {
  std::string version;
  std::string expected_version;
  const int kind = *rc::gen::inRange(0, 5);
  const std::uint64_t wall = *rc::gen::inRange<std::uint64_t>(1, 4)
                             << (8 * *rc::gen::inRange(0, 8));
  const std::uint32_t logical = *rc::gen::element<std::uint32_t>(0, 1, 7, 0xffffffffu);
  std::string w8, l4;
  for (int i = 7; i >= 0; --i) w8.push_back(static_cast<char>(wall >> (8 * i)));
  for (int i = 3; i >= 0; --i) l4.push_back(static_cast<char>(logical >> (8 * i)));
  if (kind == 1) {  // wall time: 9-byte suffix
    version = w8;
    expected_version = w8;
  } else if (kind == 2 || kind == 3) {  // 13-byte suffix, or 14 with the old synthetic bit
    version = w8 + l4 + (kind == 3 ? std::string(1, '\x01') : "");
    expected_version = logical == 0 ? w8 : w8 + l4;
  } else if (kind == 4) {  // untyped (a lock-table key has 17 bytes)
    std::size_t n = *rc::gen::element<std::size_t>(1, 2, 7, 9, 11, 14, 17, 30, 254);
    version = std::string(n, static_cast<char>(*rc::gen::inRange(0, 256)));
    expected_version = version;
  }
  auto engine = [&](const std::string& v) {
    std::string k = roach + std::string(1, '\0') + v;
    if (!v.empty()) k.push_back(static_cast<char>(v.size() + 1));
    return k;
  };
  const std::uint64_t seq = *rc::gen::inRange<std::uint64_t>(0, 1u << 20);
  return {engine(version),
          engine(expected_version),
          seq << 8 | *rc::gen::elementOf(kPointKinds),
          {},
          false,
          {},
          {},
          {}};
}

TEST(PebbleColblkProperty, Crdb1DataBlocksRoundTrip) {
  CheckProperty(200, 60, [] {
    const bool tiering = *rc::gen::arbitrary<bool>();
    const auto roaches = SortedKeys(*rc::gen::inRange<std::size_t>(1, 60), true);
    std::vector<Model> rows;
    for (const auto& roach : roaches) {
      const int versions = *rc::gen::inRange(1, 4);
      for (int v = 0; v < versions; ++v) rows.push_back(EngineKey(roach));
    }
    CheckDataBlock(Crdb1KeySchema(), rows, tiering);
  });
}

TEST(PebbleColblkProperty, EncoderRefusesKeysOutOfOrder) {
  CheckProperty(100, 30, [] {
    auto keys = SortedKeys(*rc::gen::inRange<std::size_t>(2, 30), true);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    RC_PRE(keys.size() >= 2);
    Result<DataBlockEncoder> enc = DataBlockEncoder::Make(DefaultKeySchema(), false);
    auto row = [](const std::string& key, std::uint64_t trailer) {
      DataBlockRow r;
      r.user_key = AsBytes(key);
      r.trailer = trailer;
      return r;
    };
    RC_ASSERT(enc->Add(row(keys[1], 1 << 8 | 1)).ok());
    RC_ASSERT(!enc->Add(row(keys[0], 2 << 8 | 1)).ok());
    RC_ASSERT(!enc->Add(row(keys[1], 1 << 8 | 1)).ok());  // the same internal key
    RC_ASSERT(enc->Add(row(keys[1], 0 << 8 | 1)).ok());   // an older version
  });
}

// ---- index, keyspan and key-value blocks -------------------------------------------------------

TEST(PebbleColblkProperty, IndexKeyValueAndKeyspanBlocksRoundTrip) {
  CheckProperty(200, 60, [] {
    const auto keys = SortedKeys(*rc::gen::inRange<std::size_t>(0, 80), true);
    IndexBlockWriter index;
    KeyValueBlockWriter kv;
    std::vector<std::uint64_t> offsets, lengths;
    std::uint64_t at = *rc::gen::element<std::uint64_t>(0, 1u << 30, 1ull << 40);
    for (const auto& k : keys) {
      const std::uint64_t length = RandomUint() % 100000;
      offsets.push_back(at), lengths.push_back(length);
      index.AddBlockHandle(AsBytes(k), at, length, AsBytes(k.empty() ? "" : "\x01\x01z"));
      kv.Add(AsBytes(k), AsBytes(std::to_string(length)));
      at += length + 5;
    }
    Result<ByteVector> ib = index.Finish(index.rows());
    RC_ASSERT(ib.ok());
    Result<IndexBlock> i = IndexBlock::Decode(ib.value(), kPlace);
    RC_ASSERT(i.ok());
    RC_ASSERT(VerifyIndexBlock(*i, KeyComparer::kBytewise).ok());
    Result<ByteVector> kb = kv.Finish(kv.rows());
    RC_ASSERT(kb.ok());
    Result<KeyValueBlock> k = KeyValueBlock::Decode(kb.value(), kPlace);
    RC_ASSERT(k.ok());
    for (std::uint32_t r = 0; r < keys.size(); ++r) {
      RC_ASSERT(AsChars(i->separator(r)) == keys[r]);
      RC_ASSERT(i->offset(r) == offsets[r] && i->length(r) == lengths[r]);
      RC_ASSERT(AsChars(k->key(r)) == keys[r]);
      RC_ASSERT(AsChars(k->value(r)) == std::to_string(lengths[r]));
    }
    // Spans over distinct boundaries: some abut, some leave gaps.
    std::vector<std::string> bounds = keys;
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    KeyspanBlockWriter spans;
    std::map<std::pair<std::string, std::string>, std::vector<std::uint64_t>> written;
    for (std::size_t b = 0; b + 1 < bounds.size(); b += *rc::gen::inRange<std::size_t>(1, 3)) {
      std::vector<KeyspanKey> span;
      for (std::uint64_t seq = *rc::gen::inRange<std::uint64_t>(1, 4); seq > 0; --seq) {
        span.push_back({seq << 8 | 15, {}, {}});
        written[{bounds[b], bounds[b + 1]}].push_back(seq << 8 | 15);
      }
      spans.AddSpan(AsBytes(bounds[b]), AsBytes(bounds[b + 1]), span);
    }
    Result<ByteVector> sb = spans.Finish();
    RC_ASSERT(sb.ok());
    Result<KeyspanBlock> s = KeyspanBlock::Decode(sb.value(), kPlace);
    RC_ASSERT(s.ok());
    RC_ASSERT(VerifyKeyspanBlock(*s, KeyComparer::kBytewise).ok());
    std::map<std::pair<std::string, std::string>, std::vector<std::uint64_t>> read;
    for (std::uint32_t b = 0; b + 1 < s->boundary_count(); ++b) {
      for (std::uint64_t key = s->boundary_start(b); key < s->boundary_start(b + 1); ++key) {
        read[{std::string(AsChars(s->boundary_key(b))),
              std::string(AsChars(s->boundary_key(b + 1)))}]
            .push_back(s->trailer(key));
      }
    }
    RC_ASSERT(read == written);
  });
}

}  // namespace
}  // namespace bloomcodec::pebble::colblk
