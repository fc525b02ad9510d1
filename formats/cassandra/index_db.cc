#include "cassandra/index_db.h"

#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>

#include <nettle/md5.h>

#include "cassandra/murmur3/hash_inline.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {

IndexKeyForm IndexKeyFormForVersion(std::string_view version) {
  // Descriptor.hasEncodedKeys: versions compare as strings, "a" .. "d" are before "e".
  return version < std::string_view("e") ? IndexKeyForm::kRandomPartitionerEncoded
                                         : IndexKeyForm::kRaw;
}

namespace {

// MD5 of `data` (Nettle's, a well-kept implementation): RandomPartitioner's token is made from
// it.
std::array<std::uint8_t, 16> Md5(ByteSpan data) {
  md5_ctx ctx;
  md5_init(&ctx);
  md5_update(&ctx, data.size(), data.data());
  std::array<std::uint8_t, 16> out{};
  md5_digest(&ctx, out.size(), out.data());
  return out;
}

}  // namespace

std::string RandomPartitionerToken(ByteSpan key) {
  const std::array<std::uint8_t, 16> digest = Md5(key);
  __extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension
  U128 v = 0;
  for (std::uint8_t b : digest) v = v << 8 | b;
  // new BigInteger(digest) is two's complement; abs() of the most negative value (2^127) fits
  // the unsigned 128 bits.
  if (digest[0] & 0x80) v = ~v + 1;
  std::string decimal;
  do {
    decimal.insert(decimal.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return decimal;
}

IndexKeyForm DetectIndexKeyFormBeforeE(ByteSpan file) {
  // A few entries suffice: a match of a 128-bit MD5 is no accident, and one RandomPartitioner
  // entry decides the file (every entry of one sstable has the same partitioner).
  constexpr int kEntriesLooked = 16;
  std::size_t at = 0;
  for (int entry = 0; entry < kEntriesLooked; ++entry) {
    if (file.size() - at < 2)
      return entry == 0 ? IndexKeyForm::kRandomPartitionerEncoded : IndexKeyForm::kRaw;
    const std::size_t length = std::size_t{file[at]} << 8 | file[at + 1];
    if (file.size() - at - 2 < length) {
      return entry == 0 ? IndexKeyForm::kRandomPartitionerEncoded : IndexKeyForm::kRaw;
    }
    const ByteSpan stored = file.subspan(at + 2, length);
    std::size_t digits = 0;
    while (digits < stored.size() && stored[digits] >= '0' && stored[digits] <= '9') ++digits;
    if (digits > 0 && digits < stored.size() && stored[digits] == ':') {
      const std::string token(stored.begin(), stored.begin() + digits);
      if (token == RandomPartitionerToken(stored.subspan(digits + 1))) {
        return IndexKeyForm::kRandomPartitionerEncoded;
      }
    }
    // Every entry of versions before e is the key and an i64 position.
    if (file.size() - at - 2 - length < 8) return IndexKeyForm::kRaw;
    at += 2 + length + 8;
  }
  return IndexKeyForm::kRaw;
}

IndexKeyForm IndexKeyFormFor(std::string_view version, ByteSpan file) {
  const IndexKeyForm by_version = IndexKeyFormForVersion(version);
  return by_version == IndexKeyForm::kRaw ? by_version : DetectIndexKeyFormBeforeE(file);
}

IndexEntryForm IndexEntryFormForVersion(std::string_view version) {
  // 1.2 added the promoted column index to every entry; 3.0 (ma, "storeRows") wrote the entry
  // with vints.
  if (version < std::string_view("ia")) return IndexEntryForm::kPositionOnly;
  if (version < std::string_view("ma")) return IndexEntryForm::kLongPositionAndPromoted;
  return IndexEntryForm::kVIntPositionAndPromoted;
}

void PutCassandraUnsignedVInt(ByteVector& out, std::uint64_t value) {
  // Size: 9 - (leading zeros of (value | 1) - 1) / 7 bytes.
  const int magnitude = std::countl_zero(value | 1);
  const int size = 9 - (magnitude - 1) / 7;
  if (size == 1) {
    out.push_back(static_cast<std::uint8_t>(value));
    return;
  }
  const int extra = size - 1;
  std::uint8_t bytes[9];
  for (int i = size - 1; i >= 0; --i) {
    bytes[i] = static_cast<std::uint8_t>(value);
    value >>= 8;
  }
  // The first byte starts with `extra` one bits (all of it when extra == 8).
  bytes[0] |= static_cast<std::uint8_t>(~(0xffu >> extra));
  out.insert(out.end(), bytes, bytes + size);
}

namespace {

Result<std::uint64_t> ReadCassandraUnsignedVInt(ByteReader& reader, std::string_view what) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint8_t first, reader.ReadU8(what));
  if (first < 0x80) return std::uint64_t{first};
  const int extra = std::countl_one(first);  // 1 .. 8
  std::uint64_t value = first & (0xffu >> extra);
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan rest,
                              reader.ReadBytes(static_cast<std::uint64_t>(extra), what));
  for (std::uint8_t b : rest) value = (value << 8) | b;
  return value;
}

// The key the filter saw, from RandomPartitioner's disk form "<token>:<key>". The token is a
// BigInteger printed in decimal (an MD5 made non-negative), so only digits precede the ':'.
Result<ByteSpan> DecodeRandomPartitionerKey(ByteSpan stored, const ByteReader& reader,
                                            std::uint64_t key_offset) {
  std::size_t i = 0;
  while (i < stored.size() && stored[i] >= '0' && stored[i] <= '9') ++i;
  if (i == 0 || i == stored.size() || stored[i] != ':') {
    return reader.ErrorAt(key_offset + i,
                          "RandomPartitioner's encoded key '<decimal token>:<key>' (versions "
                          "before e store keys encoded)",
                          i == stored.size() ? "the end of the key"
                                             : "byte " + ToHex(stored.subspan(i, 1)));
  }
  return stored.subspan(i + 1);
}

}  // namespace

Result<IndexDb> ReadIndexDb(ByteSpan file, std::string_view source, IndexKeyForm form) {
  IndexDb index;
  BLOOMCODEC_RETURN_IF_ERROR(ReadIndexDbInto(file, source, form, index));
  return index;
}

Status ReadIndexDbInto(ByteSpan file, std::string_view source, IndexKeyForm form, IndexDb& index) {
  return ReadIndexDbInto(file, source, form, IndexEntryForm::kPositionOnly, index);
}

namespace {

// One entry as the filter sees it: its key (decoded), its Data.db position, where the next begins.
struct Entry {
  ByteSpan key;
  std::int64_t position = 0;
  std::uint64_t next = 0;
};

// The entry at `at` read with every check and its exact message; `previous` is the previous
// entry's position (-1 for the first). Only called where DecodeEntryOf refused an entry, and by the
// whole-file reader's callers through it: messages are built only when an entry is damaged.
Status ReadEntry(ByteSpan file, std::string_view source, IndexKeyForm form,
                 IndexEntryForm entry_form, std::uint64_t at, std::uint64_t entry,
                 std::int64_t previous, Entry& out) {
  ByteReader reader(file, source);
  BLOOMCODEC_RETURN_IF_ERROR(reader.Skip(at, "entry start"));
  const std::string label = "entry " + std::to_string(entry);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint16_t length, reader.ReadBigU16(label + ": key length"));
  const std::uint64_t key_offset = reader.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan stored, reader.ReadBytes(length, label + ": key bytes"));
  const std::uint64_t position_offset = reader.offset();
  std::int64_t position = 0;
  if (entry_form == IndexEntryForm::kVIntPositionAndPromoted) {
    BLOOMCODEC_ASSIGN_OR_RETURN(
        std::uint64_t p, ReadCassandraUnsignedVInt(reader, label + ": Data.db position (vint)"));
    position = static_cast<std::int64_t>(p);  // above 2^63 - 1: negative, refused below
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(position, reader.ReadBigI64(label + ": Data.db position (i64 BE)"));
  }
  if (position < 0) {
    return reader.ErrorAt(position_offset, label + ": a non-negative Data.db position",
                          std::to_string(position));
  }
  if (entry_form != IndexEntryForm::kPositionOnly) {
    // The promoted column index: its size, then that many bytes the filter does not need.
    const std::uint64_t size_offset = reader.offset();
    std::int64_t size = 0;
    if (entry_form == IndexEntryForm::kVIntPositionAndPromoted) {
      BLOOMCODEC_ASSIGN_OR_RETURN(
          std::uint64_t s,
          ReadCassandraUnsignedVInt(reader, label + ": promoted index size (vint)"));
      size = s > static_cast<std::uint64_t>(INT32_MAX) ? -1 : static_cast<std::int64_t>(s);
    } else {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t s,
                                  reader.ReadBigI32(label + ": promoted index size (i32 BE)"));
      size = s;
    }
    if (size < 0) {
      return reader.ErrorAt(size_offset, label + ": a promoted index size from 0 to 2^31 - 1",
                            "a larger or negative value");
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        reader.Skip(static_cast<std::uint64_t>(size), label + ": promoted index bytes"));
  }
  if (previous >= 0 && position <= previous) {
    return reader.ErrorAt(position_offset,
                          label + ": a Data.db position above the previous entry's " +
                              std::to_string(previous),
                          std::to_string(position));
  }
  out.key = stored;
  if (form == IndexKeyForm::kRandomPartitionerEncoded) {
    BLOOMCODEC_ASSIGN_OR_RETURN(out.key, DecodeRandomPartitionerKey(stored, reader, key_offset));
  }
  out.position = position;
  out.next = reader.offset();
  return Status();
}

// Cassandra's unsigned vint at `at`, within `end`; false when cut short.
inline bool DecodeVInt(const std::uint8_t* p, std::uint64_t at, std::uint64_t end,
                       std::uint64_t& value, std::uint64_t& next) {
  if (at >= end) return false;
  const std::uint8_t first = p[at];
  if (first < 0x80) {
    value = first;
    next = at + 1;
    return true;
  }
  const int extra = std::countl_one(first);
  if (end - at >= 9) {
    // One big-endian load of the 8 bytes after the first, shifted: no loop, no branch per byte.
    std::uint64_t word;
    std::memcpy(&word, p + at + 1, 8);
    word = __builtin_bswap64(word);
    const std::uint64_t low = extra == 8 ? word : word >> (64 - 8 * extra);
    const std::uint64_t high =
        extra == 8 ? 0 : std::uint64_t{first & (0xffu >> extra)} << (8 * extra);
    value = high | low;
    next = at + 1 + static_cast<std::uint64_t>(extra);
    return true;
  }
  if (end - at - 1 < static_cast<std::uint64_t>(extra)) return false;
  std::uint64_t v = first & (0xffu >> extra);
  for (int i = 1; i <= extra; ++i) v = (v << 8) | p[at + i];
  value = v;
  next = at + 1 + static_cast<std::uint64_t>(extra);
  return true;
}

inline std::uint64_t LoadBig(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// The entry at `at` when it passes every check ReadEntry makes, without building a message:
// false for anything ReadEntry would refuse (the caller asks ReadEntry for the error). The hot
// path of streaming: no allocation, no string.
template <IndexKeyForm form, IndexEntryForm entry_form>
inline bool DecodeEntryOf(ByteSpan file, std::uint64_t at, std::int64_t previous, Entry& out) {
  const std::uint8_t* p = file.data();
  const std::uint64_t end = file.size();
  if (end - at < 2) return false;
  const std::uint64_t length = std::uint64_t{p[at]} << 8 | p[at + 1];
  const std::uint64_t key_at = at + 2;
  if (end - key_at < length) return false;
  std::uint64_t cursor = key_at + length;
  std::int64_t position = 0;
  if constexpr (entry_form == IndexEntryForm::kVIntPositionAndPromoted) {
    std::uint64_t v = 0;
    if (!DecodeVInt(p, cursor, end, v, cursor)) return false;
    position = static_cast<std::int64_t>(v);
  } else {
    if (end - cursor < 8) return false;
    position = static_cast<std::int64_t>(LoadBig(p + cursor, 8));
    cursor += 8;
  }
  if (position < 0) return false;
  if constexpr (entry_form != IndexEntryForm::kPositionOnly) {
    std::uint64_t size = 0;
    if constexpr (entry_form == IndexEntryForm::kVIntPositionAndPromoted) {
      if (!DecodeVInt(p, cursor, end, size, cursor)) return false;
      if (size > static_cast<std::uint64_t>(INT32_MAX)) return false;
    } else {
      if (end - cursor < 4) return false;
      const std::int32_t s = static_cast<std::int32_t>(LoadBig(p + cursor, 4));
      cursor += 4;
      if (s < 0) return false;
      size = static_cast<std::uint64_t>(s);
    }
    if (end - cursor < size) return false;
    cursor += size;
  }
  if (previous >= 0 && position <= previous) return false;
  ByteSpan key(p + key_at, length);
  if constexpr (form == IndexKeyForm::kRandomPartitionerEncoded) {
    std::size_t i = 0;
    while (i < key.size() && key[i] >= '0' && key[i] <= '9') ++i;
    if (i == 0 || i == key.size() || key[i] != ':') return false;
    key = key.subspan(i + 1);
  }
  out.key = key;
  out.position = position;
  out.next = cursor;
  return true;
}

}  // namespace

namespace {

// The scan for one key form and entry form, decided at compile time: the hot loop has no branch
// on either, only the entry's own chain of lengths.
template <IndexKeyForm form, IndexEntryForm entry_form>
Status ScanOf(ByteSpan file, std::string_view source, std::uint64_t until, IndexScan& scan,
              std::vector<ByteSpan>* keys, std::vector<Murmur3Hash>* hashes) {
  Entry slow;
  std::uint64_t offset = scan.offset;
  std::uint64_t entries = scan.entries;
  std::int64_t last = scan.last_position;
  const std::uint64_t stop = std::min<std::uint64_t>(until, file.size());
  Status status;
  // Keys and hashes go to small local arrays first and into the vectors a batch at a time: the
  // loop keeps its state in registers instead of reloading the vectors' ends after each store.
  // Plain records, left uninitialized: a caller reading one entry per call (ReadIndexDbInto)
  // pays nothing for the batch.
  struct KeyRef {
    const std::uint8_t* data;
    std::size_t size;
  };
  constexpr std::size_t kBatch = 64;
  std::array<KeyRef, kBatch> batch_keys;
  std::array<Murmur3Hash, kBatch> batch_hashes;
  std::size_t in_batch = 0;
  const auto spill = [&] {
    if (keys) {
      for (std::size_t i = 0; i < in_batch; ++i) {
        keys->emplace_back(batch_keys[i].data, batch_keys[i].size);
      }
    }
    if (hashes) {
      hashes->insert(hashes->end(), batch_hashes.begin(), batch_hashes.begin() + in_batch);
    }
    in_batch = 0;
  };
  while (offset < stop) {
    // `e` stays in registers: the slow path reads into an entry of its own. (Had `e` escaped
    // to ReadEntry, each decode would store its key span to the stack and load it back whole, a
    // load the CPU cannot forward from the two smaller stores: a stall per entry.)
    Entry e;
    if (!DecodeEntryOf<form, entry_form>(file, offset, last, e)) [[unlikely]] {
      status = ReadEntry(file, source, form, entry_form, offset, entries, last, slow);
      if (!status.ok()) break;
      e = slow;
    }
    batch_keys[in_batch] = {e.key.data(), e.key.size()};
    if (hashes) batch_hashes[in_batch] = InlineCassandraMurmur3(e.key);
    if (++in_batch == kBatch) spill();
    offset = e.next;
    last = e.position;
    ++entries;
  }
  spill();
  scan.offset = offset;
  scan.entries = entries;
  scan.last_position = last;
  return status;
}

template <IndexKeyForm form>
Status ScanOfKeyForm(ByteSpan file, std::string_view source, IndexEntryForm entry_form,
                     std::uint64_t until, IndexScan& scan, std::vector<ByteSpan>* keys,
                     std::vector<Murmur3Hash>* hashes) {
  switch (entry_form) {
    case IndexEntryForm::kPositionOnly:
      return ScanOf<form, IndexEntryForm::kPositionOnly>(file, source, until, scan, keys, hashes);
    case IndexEntryForm::kLongPositionAndPromoted:
      return ScanOf<form, IndexEntryForm::kLongPositionAndPromoted>(file, source, until, scan, keys,
                                                                    hashes);
    case IndexEntryForm::kVIntPositionAndPromoted:
      return ScanOf<form, IndexEntryForm::kVIntPositionAndPromoted>(file, source, until, scan, keys,
                                                                    hashes);
  }
  return Status::Internal("unknown Index.db entry form");
}

}  // namespace

Status ScanIndexEntries(ByteSpan file, std::string_view source, IndexKeyForm form,
                        IndexEntryForm entry_form, std::uint64_t until, IndexScan& scan,
                        std::vector<ByteSpan>* keys, std::vector<Murmur3Hash>* hashes) {
  return form == IndexKeyForm::kRaw ? ScanOfKeyForm<IndexKeyForm::kRaw>(file, source, entry_form,
                                                                        until, scan, keys, hashes)
                                    : ScanOfKeyForm<IndexKeyForm::kRandomPartitionerEncoded>(
                                          file, source, entry_form, until, scan, keys, hashes);
}

Status ReadIndexDbInto(ByteSpan file, std::string_view source, IndexKeyForm form,
                       IndexEntryForm entry_form, IndexDb& index) {
  // A lower bound of the entry count (each takes at least 10 bytes) is checked against the
  // input's length by construction; no header field sizes an allocation.
  index.positions.reserve(index.positions.size() + file.size() / 10);
  IndexScan scan;
  if (!index.positions.empty()) scan.last_position = index.positions.back();
  std::vector<ByteSpan> keys;
  Status status;
  while (scan.offset < file.size() && status.ok()) {
    // One entry at a time: the positions are kept too.
    keys.clear();
    status = ScanIndexEntries(file, source, form, entry_form, scan.offset + 1, scan, &keys);
    if (!keys.empty()) {
      index.keys.Add(keys.front());
      index.positions.push_back(scan.last_position);
    }
  }
  return status;
}

Result<ByteVector> WriteIndexDb(const KeyList& keys, std::span<const std::int64_t> positions) {
  if (positions.size() != keys.size()) {
    return Status::InvalidArgument("WriteIndexDb: one position per key");
  }
  ByteVector out;
  ByteWriter writer(out);
  writer.Reserve(keys.total_bytes() + keys.size() * 10);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > 0xffff) {
      return Status::InvalidArgument("key " + std::to_string(i) + " has " +
                                     std::to_string(keys[i].size()) +
                                     " bytes; Index.db stores at most 65535");
    }
    writer.PutBigU16(static_cast<std::uint16_t>(keys[i].size()));
    writer.PutBytes(keys[i]);
    writer.PutBigI64(positions[i]);
  }
  return out;
}

Result<ByteVector> WriteIndexDb(const KeyList& keys, std::span<const std::int64_t> positions,
                                IndexEntryForm form,
                                std::span<const std::uint32_t> promoted_sizes) {
  if (form == IndexEntryForm::kPositionOnly) return WriteIndexDb(keys, positions);
  if (positions.size() != keys.size() ||
      (!promoted_sizes.empty() && promoted_sizes.size() != keys.size())) {
    return Status::InvalidArgument("WriteIndexDb: one position (and promoted size) per key");
  }
  ByteVector out;
  ByteWriter writer(out);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > 0xffff) {
      return Status::InvalidArgument("key " + std::to_string(i) + " has " +
                                     std::to_string(keys[i].size()) +
                                     " bytes; Index.db stores at most 65535");
    }
    const std::uint32_t promoted = promoted_sizes.empty() ? 0 : promoted_sizes[i];
    if (promoted > static_cast<std::uint32_t>(INT32_MAX)) {
      return Status::InvalidArgument("a promoted index size is an int");
    }
    writer.PutBigU16(static_cast<std::uint16_t>(keys[i].size()));
    writer.PutBytes(keys[i]);
    if (form == IndexEntryForm::kLongPositionAndPromoted) {
      writer.PutBigI64(positions[i]);
      writer.PutBigI32(static_cast<std::int32_t>(promoted));
    } else {
      PutCassandraUnsignedVInt(out, static_cast<std::uint64_t>(positions[i]));
      PutCassandraUnsignedVInt(out, promoted);
    }
    writer.PutZeros(promoted);
  }
  return out;
}

Result<ByteVector> WriteIndexDb(const KeyList& keys, std::int64_t row_bytes) {
  std::vector<std::int64_t> positions(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    positions[i] = static_cast<std::int64_t>(i) * row_bytes;
  return WriteIndexDb(keys, positions);
}

}  // namespace bloomcodec::cassandra
