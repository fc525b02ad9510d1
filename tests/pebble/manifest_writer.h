// A small writer of Pebble version edits, for tests that need MANIFESTs with chosen contents:
// every tag Pebble writes and reads, in the layouts formats/pebble/FORMAT.md §8.3 describes
// (written from that description; the log records come from tests/manifest/log_writer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "manifest/log_writer.h"

namespace bloomcodec::pebble_test {

using manifest_test::AppendRecord;
using manifest_test::PutBytes;
using manifest_test::PutVarint;
using manifest_test::Span;

// A table's file name: its number in six digits or more, ".sst".
inline std::string TableFileName(std::uint64_t n) {
  std::string digits = std::to_string(n);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return digits + ".sst";
}

// Key kinds a bound may carry.
inline constexpr std::uint8_t kSet = 1;
inline constexpr std::uint8_t kRangeKeySet = 21;

// An internal key: the user key and the 8-byte trailer (sequence << 8 | kind).
inline std::string Key(const std::string& user, std::uint64_t seq = 1, std::uint8_t kind = kSet) {
  std::string k = user;
  const std::uint64_t trailer = seq << 8 | kind;
  for (int i = 0; i < 8; ++i) k.push_back(static_cast<char>(trailer >> (8 * i)));
  return k;
}

struct BlobRef {
  std::uint64_t file_id = 0, value_size = 0, backing_value_size = 0;
};

// A new table as a version edit describes it.
struct NewTable {
  int level = 0;
  std::uint64_t number = 0;
  std::uint64_t size = 100;
  std::string smallest = "a", largest = "z";  // user keys of the point bounds
  std::uint64_t smallest_seq = 1, largest_seq = 1;
  // Tag 104: range-key bounds, whether the table has point keys, and which kind gives each
  // overall bound (the marker byte's bits 2 and 4).
  bool range_keys = false;
  bool point_keys = true;
  std::string range_smallest = "a", range_largest = "z";
  bool smallest_is_point = true, largest_is_point = true;
  // Custom fields (tags 103 and 104), written in this order when set.
  std::optional<std::uint64_t> creation_time;  // 6
  bool needs_compaction = false;               // 2 (Pebble v1 and v2)
  bool no_range_key_sets = false;              // 7
  std::optional<std::uint64_t> backing;        // 66: a virtual table
  std::optional<std::string> prefix, suffix;   // 67, 68
  std::vector<BlobRef> blob_refs;              // 69, or 70 with backing value sizes
  bool blob_refs2 = false;
  std::uint64_t blob_depth = 1;
  std::string extra_custom;  // raw bytes before the terminator (unknown custom fields)

  bool HasCustomFields() const {
    return creation_time || needs_compaction || no_range_key_sets || backing || prefix || suffix ||
           !blob_refs.empty() || !extra_custom.empty();
  }
};

// A table at `level` with point keys `smallest` .. `largest`.
inline NewTable Table(int level, std::uint64_t number, const std::string& smallest = "a",
                      const std::string& largest = "z", std::uint64_t size = 100) {
  NewTable t;
  t.level = level;
  t.number = number;
  t.smallest = smallest;
  t.largest = largest;
  t.size = size;
  return t;
}

// The fields of one version edit, appended in call order.
class Edit {
 public:
  Edit& Comparator(const std::string& name) { return Tag(1).Bytes(name); }
  Edit& LogNumber(std::uint64_t n) { return Tag(2).Num(n); }
  Edit& NextFile(std::uint64_t n) { return Tag(3).Num(n); }
  Edit& LastSequence(std::uint64_t n) { return Tag(4).Num(n); }
  Edit& CompactPointer(int level, const std::string& key) { return Tag(5).Num(level).Bytes(key); }
  Edit& Deleted(int level, std::uint64_t number) { return Tag(6).Num(level).Num(number); }
  Edit& PrevLogNumber(std::uint64_t n) { return Tag(9).Num(n); }
  Edit& Excise(const std::string& start, const std::string& end, std::uint64_t kind,
               std::uint64_t seq) {
    return Tag(10).Bytes(start).Bytes(end).Num(kind).Num(seq);
  }
  Edit& Marked(int level, std::uint64_t number) { return Tag(11).Num(level).Num(number); }
  Edit& CreatedBacking(std::uint64_t number, std::uint64_t size) {
    return Tag(105).Num(number).Num(size);
  }
  Edit& RemovedBacking(std::uint64_t number) { return Tag(106).Num(number); }
  Edit& NewBlobFile(std::uint64_t id, std::uint64_t number, std::uint64_t size,
                    std::uint64_t value_size, std::uint64_t creation_time) {
    return Tag(107).Num(id).Num(number).Num(size).Num(value_size).Num(creation_time);
  }
  Edit& DeletedBlobFile(std::uint64_t id, std::uint64_t number) {
    return Tag(108).Num(id).Num(number);
  }
  Edit& Raw(const std::string& bytes) {
    bytes_ += bytes;
    return *this;
  }

  // A new table under the tag Pebble's encoder picks: 104 with range keys, 103 with custom
  // fields, else 100.
  Edit& Add(const NewTable& t) {
    return AddAs(t.range_keys ? 104 : t.HasCustomFields() ? 103 : 100, t);
  }

  // A new table under `tag` (7, 100, 102, 103 or 104).
  Edit& AddAs(std::uint32_t tag, const NewTable& t) {
    Tag(tag).Num(t.level).Num(t.number);
    if (tag == 102) Num(0);  // path id
    Num(t.size);
    if (tag == 104) {
      std::uint8_t marker =
          (t.point_keys ? 1 : 0) | (t.smallest_is_point ? 2 : 0) | (t.largest_is_point ? 4 : 0);
      bytes_.push_back(static_cast<char>(marker));
      if (t.point_keys) Bytes(Key(t.smallest, t.smallest_seq)).Bytes(Key(t.largest, t.largest_seq));
      Bytes(Key(t.range_smallest, t.smallest_seq, kRangeKeySet));
      Bytes(Key(t.range_largest, t.largest_seq, kRangeKeySet));
    } else {
      Bytes(Key(t.smallest, t.smallest_seq)).Bytes(Key(t.largest, t.largest_seq));
    }
    if (tag != 7) Num(t.smallest_seq).Num(t.largest_seq);
    if (tag == 103 || tag == 104) CustomFields(t);
    return *this;
  }

  const std::string& bytes() const { return bytes_; }

 private:
  Edit& Tag(std::uint32_t tag) { return Num(tag); }
  Edit& Num(std::uint64_t v) {
    PutVarint(bytes_, v);
    return *this;
  }
  Edit& Bytes(const std::string& s) {
    PutBytes(bytes_, s);
    return *this;
  }

  void CustomFields(const NewTable& t) {
    if (t.creation_time) {
      std::string v;
      PutVarint(v, *t.creation_time);
      Num(6).Bytes(v);
    }
    if (t.needs_compaction) Num(2).Bytes(std::string(1, '\1'));
    if (t.no_range_key_sets) Num(7).Bytes("");
    if (t.backing) Num(66).Num(*t.backing);
    if (t.prefix) Num(67).Bytes(*t.prefix);
    if (t.suffix) Num(68).Bytes(*t.suffix);
    if (!t.blob_refs.empty()) {
      Num(t.blob_refs2 ? 70 : 69).Num(t.blob_depth).Num(t.blob_refs.size());
      for (const BlobRef& r : t.blob_refs) {
        Num(r.file_id).Num(r.value_size);
        if (t.blob_refs2) Num(r.backing_value_size);
      }
    }
    bytes_ += t.extra_custom;
    Num(1);
  }

  std::string bytes_;
};

// A MANIFEST of the given edits, one record each.
inline std::string Log(const std::vector<Edit>& edits) {
  std::string log;
  for (const Edit& e : edits) AppendRecord(log, e.bytes());
  return log;
}

// The first edit Pebble writes for a new MANIFEST: comparer, log number, next file number and
// last sequence number.
inline Edit Header(std::uint64_t next_file = 100, std::uint64_t log_number = 2) {
  Edit e;
  e.Comparator("leveldb.BytewiseComparator")
      .LogNumber(log_number)
      .NextFile(next_file)
      .LastSequence(0);
  return e;
}

}  // namespace bloomcodec::pebble_test
