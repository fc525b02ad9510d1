// Internal to the library (not installed): the key schemas of columnar data blocks, found by the
// name a table's properties give (`pebble.colblk.schema`), and the comparers they order keys by.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(KeySchema schema, FindKeySchema(properties.key_schema));
//   // Unsupported, naming the known schemas, when Pebble would not know it either.
//
// Schemas [Pebble sstable/colblk/data_block.go: DefaultKeySchema; cockroachkvs/cockroachkvs.go;
// CockroachDB pkg/storage/pebble_key_schema.go]:
// * `DefaultKeySchema(<comparer name>,<bundle size>)`: no schema header; columns prefix
//   (prefixbytes) = key[:Split(key)] and suffix (bytes) = the rest. The comparer only decides
//   Split and the order, not the layout, so any comparer name decodes; keys are ordered and
//   re-encoded only for the comparers we know (`leveldb.BytewiseComparator`, whose Split is the
//   whole key, and CockroachDB's `cockroach_comparator`).
// * `crdb1`: a 1-byte header of suffix types (1 MVCC, 2 empty, 4 non-MVCC); columns roach key
//   (prefixbytes, without the 0x00 sentinel), MVCC wall time (uint), MVCC logical time (uint),
//   untyped version (bytes). A CockroachDB engine key is `roach key, 0x00[, version,
//   len(version) + 1]`; Split = length minus its last byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"

namespace bloomcodec::pebble::colblk {

enum class KeySchemaKind { kDefault, kCrdb1 };

// The comparers whose Split and order we implement.
enum class KeyComparer {
  kBytewise,   // leveldb.BytewiseComparator: memcmp order, Split = the whole key
  kCockroach,  // cockroach_comparator (cockroachkvs.Compare, Split)
  kUnknown,    // named in a DefaultKeySchema but not implemented: keys decode, order unchecked
};

inline constexpr std::string_view kBytewiseComparatorName = "leveldb.BytewiseComparator";
inline constexpr std::string_view kCockroachComparatorName = "cockroach_comparator";
inline constexpr std::string_view kCrdb1SchemaName = "crdb1";

struct KeySchema {
  KeySchemaKind kind = KeySchemaKind::kDefault;
  std::string name;           // as pebble.colblk.schema holds it
  std::string comparer_name;  // the default schema's comparer; cockroach_comparator for crdb1
  KeyComparer comparer = KeyComparer::kBytewise;
  std::uint32_t bundle_size = 16;  // rows per prefixbytes bundle the writer uses

  std::uint32_t header_size() const { return kind == KeySchemaKind::kCrdb1 ? 1 : 0; }
  int key_columns() const { return kind == KeySchemaKind::kCrdb1 ? 4 : 2; }
  DataType column_type(int i) const;
  std::string_view column_name(int i) const;
};

// Pebble's DefaultKeySchema(comparer, bundle_size).
KeySchema DefaultKeySchema(std::string_view comparer_name = kBytewiseComparatorName,
                           std::uint32_t bundle_size = 16);
// CockroachDB's crdb1.
KeySchema Crdb1KeySchema();
// The schema a table names; Unsupported (naming the known ones) for any other name, where
// Pebble's reader panics.
Result<KeySchema> FindKeySchema(std::string_view name);

// The comparer's order of user keys: <0, 0, >0. kUnknown compares bytewise (callers that need
// the real order check `comparer` first).
int CompareUserKeys(KeyComparer comparer, ByteSpan a, ByteSpan b);
// The comparer's Split: the length of the key's prefix (what filters hold).
std::size_t SplitUserKey(KeyComparer comparer, ByteSpan key);
// The comparer's Equal (cockroach_comparator treats some version encodings as equal).
bool EqualUserKeys(KeyComparer comparer, ByteSpan a, ByteSpan b);

// CockroachDB engine keys (cockroachkvs.go).
namespace cockroach {
// Pebble's validateEngineKey: a non-empty key's last byte is below its length and not 1.
bool ValidEngineKey(ByteSpan key);
// Split: the key's length minus its last byte (0 for the empty key).
std::size_t Split(ByteSpan key);
// Compare: roach key and sentinel bytewise; then no version first; then versions descending,
// compared without their length byte, a 13-byte version as its first 12, a zero logical time
// dropped.
int Compare(ByteSpan a, ByteSpan b);
// ComparePointSuffixes: suffixes (version + length byte) as Compare orders them.
int ComparePointSuffixes(ByteSpan a, ByteSpan b);
bool Equal(ByteSpan a, ByteSpan b);
}  // namespace cockroach

}  // namespace bloomcodec::pebble::colblk
