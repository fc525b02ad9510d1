// Internal to the library: the numbers of version edit fields, for the readers
// (formats/manifest: version_edit.cc, pebble_edit.cc) and the repair's writers
// (formats/lsmrepair: manifest_writer.cc, pebble_edit_writer.cc) alike, so that a writer can only
// emit a tag its flavor's reader knows by the same name.
//
// The flavors agree on most numbers but not all: LevelDB defined 1..9; RocksDB and Pebble kept
// them and share the new-file tags 100..103, but give 10 (and Pebble 11, 104 on) meanings of their
// own. Shared numbers are in `manifest`, the rest in `manifest::rocksdb_tags` and
// `manifest::pebble_tags`. Facts: leveldb db/version_edit.cc, rocksdb db/version_edit.h,
// pebble internal/manifest/version_edit.go (formats/*/FORMAT.md cite them).
#pragma once

#include <cstdint>

namespace bloomcodec::manifest {

// The tags LevelDB defined and RocksDB's new-file tags, written by every flavor alike.
enum : std::uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 9,
  kNewFile2 = 100,
  kNewFile3 = 102,
  kNewFile4 = 103,
};

// Custom fields of new-file-4 records that RocksDB and Pebble share.
enum : std::uint64_t {
  kCustomTerminate = 1,
  kCustomPathId = 65,
};

namespace rocksdb_tags {

enum : std::uint32_t {
  kMinLogNumberToKeep = 10,
  kColumnFamily = 200,
  kColumnFamilyAdd = 201,
  kColumnFamilyDrop = 202,
  kMaxColumnFamily = 203,
  kInAtomicGroup = 300,
  kBlobFileAddition = 400,
  kBlobFileGarbage = 401,
  // A tag with this bit set may be skipped by a reader that does not know it.
  kTagSafeIgnoreMask = 1u << 13,
};

// Custom fields of RocksDB's new-file-4 records that the repair rewrites. A custom field with
// kCustomNonSafeIgnoreMask set must be understood; below it a reader may skip the field.
enum : std::uint32_t {
  kCustomFileChecksum = 7,
  kCustomFileChecksumFunction = 8,
  kCustomTailSize = 15,
  kCustomNonSafeIgnoreMask = 1u << 6,
};

}  // namespace rocksdb_tags

namespace pebble_tags {

enum : std::uint32_t {
  kExciseBounds = 10,
  kMarkedForCompaction = 11,
  kNewFile5 = 104,  // a table with range keys
  kCreatedBacking = 105,
  kRemovedBacking = 106,
  kNewBlobFile = 107,
  kDeletedBlobFile = 108,
  // RocksDB's column family tags, which Pebble refuses.
  kFirstColumnFamilyTag = 200,
  kLastColumnFamilyTag = 203,
};

// Custom fields of new-file tags 103 and 104. Below kNonSafeIgnoreMask a field is length-prefixed
// bytes a reader may skip; from it on Pebble must know the field, and 66, 69 and 70 are not
// length-prefixed.
enum : std::uint64_t {
  kCustomNeedsCompaction = 2,
  kCustomCreationTime = 6,
  kCustomNoRangeKeySets = 7,
  kNonSafeIgnoreMask = 1 << 6,
  kCustomVirtual = 66,
  kCustomSyntheticPrefix = 67,
  kCustomSyntheticSuffix = 68,
  kCustomBlobReferences = 69,
  kCustomBlobReferences2 = 70,  // adds each reference's backing value size
};

// The marker byte of tag 104.
enum : std::uint8_t {
  kHasPointKeys = 1,
  kSmallestIsPointKey = 2,
  kLargestIsPointKey = 4,
};

}  // namespace pebble_tags
}  // namespace bloomcodec::manifest
