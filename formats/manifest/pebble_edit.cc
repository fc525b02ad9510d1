// Pebble's version edits, as its decoder reads them (internal/manifest/version_edit.go,
// VersionEdit.Decode; formats/pebble/FORMAT.md §8.3). Pebble writes LevelDB's tags 1..9 and
// RocksDB's new-file tags 100..103 in RocksDB's layout, but 10 is its excise record (RocksDB's
// "min log number to keep"), 11 marks a table for compaction, 104..108 are its own, every number
// and length is a uvarint64, and it refuses the column family tags, RocksDB's path id and any
// tag it does not know. Replay is in pebble_replay.cc.
#include <algorithm>
#include <cstdint>
#include <string>

#include "manifest/edit_reader.h"

namespace bloomcodec::manifest {
namespace {

constexpr int kPebbleLevels = 7;  // manifest.NumLevels

// --- Database-wide fields ---

Status PebbleComparator(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, in.LengthPrefixed64("the comparator name"));
  edit.comparator = std::string(name.begin(), name.end());
  return Status();
}

// Pebble reads a compact pointer's key as plain bytes and drops it.
Status PebbleCompactPointer(EditReader& in, VersionEdit&) {
  BLOOMCODEC_RETURN_IF_ERROR(in.Level("a compact pointer's level").status());
  return in.LengthPrefixed64("a compact pointer's key").status();
}

// Tag 10 (format major version 25 on): an excise's bounds and sequence number. Decoded for its
// validity; the tables it cut are in the same edit's deletions and additions.
Status ExciseBounds(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_RETURN_IF_ERROR(in.LengthPrefixed64("an excise's start key").status());
  BLOOMCODEC_RETURN_IF_ERROR(in.LengthPrefixed64("an excise's end key").status());
  // The end is exclusive for 0, inclusive for anything else.
  BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("an excise's end boundary kind").status());
  BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("an excise's sequence number").status());
  edit.pebble_only = true;
  return Status();
}

// --- Tables, backings and blob files ---

// Tag 11 (format major version 28 on). Pebble reads the level as a plain uvarint; one of 7 or
// more would index past its levels, so it is refused here like a table's level.
Status MarkedForCompaction(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(int level, in.Level("a marked table's level"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t number, in.Varint64("a marked table's number"));
  edit.marked_for_compaction.push_back({level, number});
  edit.pebble_only = true;
  return Status();
}

Status CreatedBacking(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t number, in.Varint64("a backing table's file number"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t size, in.Varint64("a backing table's size"));
  edit.created_backings.push_back({number, size});
  edit.pebble_only = true;
  return Status();
}

Status RemovedBacking(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t number,
                              in.Varint64("a removed backing table's file number"));
  edit.removed_backings.push_back(number);
  edit.pebble_only = true;
  return Status();
}

Status NewBlobFile(EditReader& in, VersionEdit& edit) {
  BlobFile b;
  BLOOMCODEC_ASSIGN_OR_RETURN(b.id, in.Varint64("a blob file's id"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.number, in.Varint64("a blob file's disk file number"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.size, in.Varint64("a blob file's size"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.value_size, in.Varint64("a blob file's value size"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.creation_time, in.Varint64("a blob file's creation time"));
  edit.new_blob_files.push_back(b);
  edit.pebble_only = true;
  return Status();
}

Status DeletedBlobFile(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t id, in.Varint64("a deleted blob file's id"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t number,
                              in.Varint64("a deleted blob file's disk file number"));
  edit.deleted_blob_files.push_back({id, number});
  edit.pebble_only = true;
  return Status();
}

// --- New files ---

// A length-prefixed internal key. Pebble takes a key shorter than its 8-byte trailer for an empty
// key of kind "invalid"; no Pebble writes one, so it is damage here.
Result<ByteVector> Key(EditReader& in, std::string_view what) {
  const std::size_t at = in.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan k, in.LengthPrefixed64(what));
  if (k.size() < 8) {
    return in.Fail(at, std::string(what) + " of at least 8 bytes (an internal key), found " +
                           std::to_string(k.size()));
  }
  return ByteVector(k.begin(), k.end());
}

// Custom tags 69 and 70: bare uvarints, a depth, a count and per reference its blob file id and
// value size (70: and the backing's value size). Pebble allocates the count before reading;
// here a count the rest of the edit cannot hold is damage.
Status BlobReferences(EditReader& in, std::uint64_t custom, TableMeta& t) {
  BLOOMCODEC_ASSIGN_OR_RETURN(t.blob_reference_depth, in.Varint64("a blob reference depth"));
  const std::size_t at = in.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t count, in.Varint64("a blob reference count"));
  const std::uint64_t fields = custom == pebble_tags::kCustomBlobReferences2 ? 3 : 2;
  if (count > in.remaining() / fields) {
    return in.Fail(at, "a blob reference count the edit can hold (at most " +
                           std::to_string(in.remaining() / fields) + "), found " +
                           std::to_string(count));
  }
  t.blob_references.clear();
  t.blob_references.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    BlobReference r;
    BLOOMCODEC_ASSIGN_OR_RETURN(r.file_id, in.Varint64("a blob reference's file id"));
    BLOOMCODEC_ASSIGN_OR_RETURN(r.value_size, in.Varint64("a blob reference's value size"));
    if (fields == 3) {
      BLOOMCODEC_ASSIGN_OR_RETURN(r.backing_value_size,
                                  in.Varint64("a blob reference's backing value size"));
    }
    t.blob_references.push_back(r);
  }
  return Status();
}

// One custom field after its tag `custom` (at `at`).
Status CustomField(EditReader& in, std::uint64_t custom, std::size_t at, TableMeta& t,
                   VersionEdit& edit) {
  if (custom == pebble_tags::kCustomVirtual) {
    t.is_virtual = true;
    BLOOMCODEC_ASSIGN_OR_RETURN(t.backing, in.Varint64("a virtual table's backing file number"));
  } else if (custom == pebble_tags::kCustomBlobReferences ||
             custom == pebble_tags::kCustomBlobReferences2) {
    BLOOMCODEC_RETURN_IF_ERROR(BlobReferences(in, custom, t));
  } else if (custom == kCustomPathId) {
    return in.Fail(at,
                   "no path id field (custom tag 65): Pebble refuses it (\"new-file4: "
                   "path-id field not supported\")");
  } else if ((custom & pebble_tags::kNonSafeIgnoreMask) != 0 &&
             custom != pebble_tags::kCustomSyntheticPrefix &&
             custom != pebble_tags::kCustomSyntheticSuffix) {
    return in.Fail(at, "a custom field Pebble knows, found tag " + std::to_string(custom) +
                           ", which a reader must understand (\"new-file4: custom field not "
                           "supported\")");
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan field, in.LengthPrefixed64("a new file's custom field"));
    if (custom == pebble_tags::kCustomNeedsCompaction) {
      // Pebble v1 and v2 mark the table when the byte is 1; Pebble 26.x reads and ignores it.
      if (field.size() != 1) return in.Fail(at, "a needs-compaction field of 1 byte");
      t.marked_for_compaction = field[0] == 1;
    } else if (custom == pebble_tags::kCustomCreationTime) {
      ByteReader r(field, "");
      Result<std::uint64_t> v = r.ReadVarint64("a creation time");
      if (!v.ok() || !r.at_end()) {
        return in.Fail(at, "a creation time field holding exactly one uvarint");
      }
      t.creation_time = *v;
    } else if (custom == pebble_tags::kCustomNoRangeKeySets) {
      if (!field.empty()) return in.Fail(at, "an empty no-range-key-sets field");
      edit.pebble_only = true;
    } else if (custom == pebble_tags::kCustomSyntheticPrefix) {
      t.synthetic_prefix = ByteVector(field.begin(), field.end());
    } else if (custom == pebble_tags::kCustomSyntheticSuffix) {
      t.synthetic_suffix = ByteVector(field.begin(), field.end());
    }
  }
  if (custom >= pebble_tags::kCustomVirtual && custom <= pebble_tags::kCustomBlobReferences2)
    edit.pebble_only = true;
  return Status();
}

// Tag 104's bounds: a marker byte, the point-key bounds when it says the table has point keys,
// then the range-key bounds; the marker picks the overall bounds from them.
Status RangeKeyBounds(EditReader& in, TableMeta& t) {
  const std::size_t at = in.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint8_t marker, in.Byte("a new file's bounds marker"));
  if ((marker & pebble_tags::kHasPointKeys) != 0) {
    KeyBounds point;
    BLOOMCODEC_ASSIGN_OR_RETURN(point.smallest, Key(in, "a new file's smallest point key"));
    BLOOMCODEC_ASSIGN_OR_RETURN(point.largest, Key(in, "a new file's largest point key"));
    t.point_keys = std::move(point);
  } else if ((marker & (pebble_tags::kSmallestIsPointKey | pebble_tags::kLargestIsPointKey)) != 0) {
    return in.Fail(at,
                   "a bounds marker that takes no bound from point keys the table does not "
                   "have, found " +
                       std::to_string(marker) +
                       " (\"new-file-4-range-keys: table without point keys has point key "
                       "bounds\")");
  }
  KeyBounds range;
  BLOOMCODEC_ASSIGN_OR_RETURN(range.smallest, Key(in, "a new file's smallest range key"));
  BLOOMCODEC_ASSIGN_OR_RETURN(range.largest, Key(in, "a new file's largest range key"));
  t.smallest =
      (marker & pebble_tags::kSmallestIsPointKey) != 0 ? t.point_keys->smallest : range.smallest;
  t.largest =
      (marker & pebble_tags::kLargestIsPointKey) != 0 ? t.point_keys->largest : range.largest;
  t.range_keys = std::move(range);
  return Status();
}

// The parts of a new-file tag, in order: level, number, [path id: 102], size, bounds (104: with
// range keys), [sequence numbers: all but 7], [custom fields up to kCustomTerminate: 103, 104].
Status NewFileOf(EditReader& in, std::uint32_t tag, VersionEdit& edit) {
  TableMeta t;
  const std::size_t start = in.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(t.level, in.Level("a new file's level"));
  BLOOMCODEC_ASSIGN_OR_RETURN(t.number, in.Varint64("a new file's number"));
  if (tag == kNewFile3) {
    // Not t.path_id (which puts a RocksDB table in another directory): Pebble ignores it. A
    // writer recording the table again finds it in t.record.bytes.
    BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("a new file's path id (read, unused)").status());
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(t.size, in.Varint64("a new file's size"));
  t.record.keys_at = in.position() - start;
  if (tag == pebble_tags::kNewFile5) {
    BLOOMCODEC_RETURN_IF_ERROR(RangeKeyBounds(in, t));
    edit.pebble_only = true;
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(t.smallest, Key(in, "a new file's smallest key"));
    BLOOMCODEC_ASSIGN_OR_RETURN(t.largest, Key(in, "a new file's largest key"));
  }
  if (tag != kNewFile) {
    BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("a new file's smallest sequence number").status());
    BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("a new file's largest sequence number").status());
  }
  t.record.custom_at = in.position() - start;
  if (tag == kNewFile4 || tag == pebble_tags::kNewFile5) {
    for (;;) {
      const std::size_t at = in.position();
      BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t custom,
                                  in.Varint64("a new file's custom field tag"));
      if (custom == kCustomTerminate) break;
      std::size_t value_at = in.position();
      BLOOMCODEC_RETURN_IF_ERROR(CustomField(in, custom, at, t, edit));
      // As RocksDB's spans: a length-prefixed value without its prefix; 66, 69 and 70 are bare
      // uvarints (PebbleCustomIsBare), taken whole.
      if (!PebbleCustomIsBare(custom)) {
        ByteReader prefix(in.Bytes(value_at, in.position()), "", 0);
        if (prefix.ReadVarint64("").ok()) value_at += prefix.position();
      }
      t.record.custom.push_back(
          {static_cast<std::uint32_t>(std::min<std::uint64_t>(custom, UINT32_MAX)),
           value_at - start, in.position() - value_at});
    }
  }
  t.record.tag = tag;
  const ByteSpan raw = in.Bytes(start, in.position());
  t.record.bytes.assign(raw.begin(), raw.end());
  edit.added.push_back(std::move(t));
  return Status();
}

template <std::uint32_t kTag>
Status NewFile(EditReader& in, VersionEdit& edit) {
  return NewFileOf(in, kTag, edit);
}

constexpr TagDecoder kPebbleTags[] = {
    {kComparator, PebbleComparator},
    {kLogNumber, LogNumber},
    {kNextFileNumber, NextFileNumber},
    {kLastSequence, LastSequence},
    {kCompactPointer, PebbleCompactPointer},
    {kDeletedFile, DeletedFile},
    {kNewFile, NewFile<kNewFile>},
    {kPrevLogNumber, PrevLogNumber},
    {pebble_tags::kExciseBounds, ExciseBounds},
    {pebble_tags::kMarkedForCompaction, MarkedForCompaction},
    {kNewFile2, NewFile<kNewFile2>},
    {kNewFile3, NewFile<kNewFile3>},
    {kNewFile4, NewFile<kNewFile4>},
    {pebble_tags::kNewFile5, NewFile<pebble_tags::kNewFile5>},
    {pebble_tags::kCreatedBacking, CreatedBacking},
    {pebble_tags::kRemovedBacking, RemovedBacking},
    {pebble_tags::kNewBlobFile, NewBlobFile},
    {pebble_tags::kDeletedBlobFile, DeletedBlobFile},
};

// Pebble refuses every other tag, RocksDB's skippable ones included.
Status PebbleUnknownTag(EditReader& in, std::uint32_t tag, std::size_t tag_at, VersionEdit&) {
  if (tag >= pebble_tags::kFirstColumnFamilyTag && tag <= pebble_tags::kLastColumnFamilyTag) {
    return in.Fail(tag_at, "no column family tag (" + std::to_string(tag) +
                               "): Pebble refuses it (\"column families are not supported\")");
  }
  return in.Fail(tag_at,
                 "a version edit tag Pebble knows (1 to 7, 9 to 11, 100, 102 to 108), found " +
                     std::to_string(tag) + " (\"MANIFEST: unknown tag\")");
}

constexpr EditFlavor kPebbleEdits{kPebbleLevels, kPebbleTags, PebbleUnknownTag, true};

}  // namespace

const EditFlavor& PebbleEdits() { return kPebbleEdits; }

bool PebbleCustomIsBare(std::uint64_t tag) {
  return tag == pebble_tags::kCustomVirtual || tag == pebble_tags::kCustomBlobReferences ||
         tag == pebble_tags::kCustomBlobReferences2;
}

}  // namespace bloomcodec::manifest
