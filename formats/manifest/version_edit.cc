// Version edits (see version_edit.h): a sequence of (varint32 tag, value) fields. Each flavor has
// a table from tag to the decoder of that field's value, and one decoder for the tags its table
// lacks (an error, or RocksDB's skippable fields). A flavor lists every tag it knows, sharing the
// decoders, rather than extending another flavor's list: the flavors agree on most tags but not all
// (Pebble writes LevelDB's tags, RocksDB's new-file tags 100..103 and its own 104..108, but gives
// 10 and 11 meanings of its own and refuses the column family tags: its table is in
// pebble_edit.cc). A new-file tag is described by its layout (NewFileLayout): which parts it has
// and how its custom fields are read. The field reader and the table types are in edit_reader.h.
#include "manifest/version_edit.h"

#include "manifest/edit_reader.h"

namespace bloomcodec::manifest {
namespace {

// --- The fields LevelDB writes (RocksDB writes them too) ---

Status Comparator(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, in.LengthPrefixed("the comparator name"));
  edit.comparator = std::string(name.begin(), name.end());
  return Status();
}

// Where the next compaction of a level starts: decoded for its validity only.
Status CompactPointer(EditReader& in, VersionEdit&) {
  BLOOMCODEC_RETURN_IF_ERROR(in.Level("a compact pointer's level").status());
  return in.InternalKey("a compact pointer's key").status();
}

// --- New files: one layout per tag ---

// Decodes one custom field of a new file (its tag `custom`, at `at`, read already) into `table`;
// returns where the field's value sits in the edit.
using CustomFieldDecoder = Result<ByteSpan> (*)(EditReader& in, std::uint32_t custom,
                                                std::size_t at, TableMeta& table);

// The parts of a new-file field, in order: level, number, [path id], size, smallest and largest
// keys, [smallest and largest sequence numbers], [custom fields up to kCustomTerminate].
struct NewFileLayout {
  bool path_id = false;
  bool sequence_numbers = false;
  CustomFieldDecoder custom_field = nullptr;  // null: the tag has no custom fields
};

Status DecodeNewFile(EditReader& in, std::uint32_t tag, const NewFileLayout& layout,
                     VersionEdit& edit) {
  TableMeta t;
  const std::size_t start = in.position();
  BLOOMCODEC_ASSIGN_OR_RETURN(t.level, in.Level("a new file's level"));
  BLOOMCODEC_ASSIGN_OR_RETURN(t.number, in.Varint64("a new file's number"));
  if (layout.path_id) {
    BLOOMCODEC_ASSIGN_OR_RETURN(t.path_id, in.Varint32("a new file's path id"));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(t.size, in.Varint64("a new file's size"));
  t.record.keys_at = in.position() - start;
  BLOOMCODEC_ASSIGN_OR_RETURN(t.smallest, in.InternalKey("a new file's smallest key"));
  BLOOMCODEC_ASSIGN_OR_RETURN(t.largest, in.InternalKey("a new file's largest key"));
  if (layout.sequence_numbers) {
    BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("a new file's smallest sequence number").status());
    BLOOMCODEC_RETURN_IF_ERROR(in.Varint64("a new file's largest sequence number").status());
  }
  t.record.custom_at = in.position() - start;
  if (layout.custom_field != nullptr) {
    for (;;) {
      const std::size_t field_at = in.position();
      BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t custom,
                                  in.Varint32("a new file's custom field tag"));
      if (custom == kCustomTerminate) break;
      BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan value, layout.custom_field(in, custom, field_at, t));
      // The value is the last thing read.
      t.record.custom.push_back({custom, in.position() - value.size() - start, value.size()});
    }
  }
  t.record.tag = tag;
  const ByteSpan raw = in.Bytes(start, in.position());
  t.record.bytes.assign(raw.begin(), raw.end());
  edit.added.push_back(std::move(t));
  return Status();
}

// RocksDB's custom fields are all length-prefixed: the path id is read, the others skipped
// unless their tag says a reader must understand them.
Result<ByteSpan> RocksDbCustomField(EditReader& in, std::uint32_t custom, std::size_t at,
                                    TableMeta& table) {
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan field, in.LengthPrefixed("a new file's custom field"));
  if (custom == kCustomPathId) {
    if (field.size() != 1) {
      return in.Fail(at, "a path id field of 1 byte, found " + std::to_string(field.size()));
    }
    table.path_id = field[0];
  } else if ((custom & rocksdb_tags::kCustomNonSafeIgnoreMask) != 0) {
    return in.Fail(at, "a new-file custom field RocksDB may ignore (tag " + std::to_string(custom) +
                           " is marked as one a reader must understand)");
  }
  return field;
}

Status NewFile(EditReader& in, VersionEdit& edit) { return DecodeNewFile(in, kNewFile, {}, edit); }

Status NewFile2(EditReader& in, VersionEdit& edit) {
  return DecodeNewFile(in, kNewFile2, {.sequence_numbers = true}, edit);
}

Status NewFile3(EditReader& in, VersionEdit& edit) {
  return DecodeNewFile(in, kNewFile3, {.path_id = true, .sequence_numbers = true}, edit);
}

Status NewFile4(EditReader& in, VersionEdit& edit) {
  return DecodeNewFile(in, kNewFile4,
                       {.sequence_numbers = true, .custom_field = RocksDbCustomField}, edit);
}

// --- The fields RocksDB adds ---

Status MinLogNumberToKeep(EditReader& in, VersionEdit&) {
  return in.Varint64("the min log number to keep").status();
}

Status ColumnFamilyField(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.column_family, in.Varint32("a column family id"));
  return Status();
}

Status ColumnFamilyAdd(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan name, in.LengthPrefixed("a column family name"));
  edit.added_column_family = std::string(name.begin(), name.end());
  return Status();
}

Status ColumnFamilyDrop(EditReader&, VersionEdit& edit) {
  edit.drops_column_family = true;
  return Status();
}

Status MaxColumnFamily(EditReader& in, VersionEdit&) {
  return in.Varint32("the max column family").status();
}

Status InAtomicGroup(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.atomic_remaining, in.Varint32("an atomic group's count"));
  return Status();
}

// Blob file records: not about tables.
Status BlobFileRecord(EditReader& in, VersionEdit&) {
  return in.LengthPrefixed("a blob file record").status();
}

// --- The flavors ---

constexpr TagDecoder kLevelDbTags[] = {
    {kComparator, Comparator},
    {kLogNumber, LogNumber},
    {kNextFileNumber, NextFileNumber},
    {kLastSequence, LastSequence},
    {kCompactPointer, CompactPointer},
    {kDeletedFile, DeletedFile},
    {kNewFile, NewFile},
    {kPrevLogNumber, PrevLogNumber},
};

constexpr TagDecoder kRocksDbTags[] = {
    {kComparator, Comparator},
    {kLogNumber, LogNumber},
    {kNextFileNumber, NextFileNumber},
    {kLastSequence, LastSequence},
    {kCompactPointer, CompactPointer},
    {kDeletedFile, DeletedFile},
    {kNewFile, NewFile},
    {kPrevLogNumber, PrevLogNumber},
    {rocksdb_tags::kMinLogNumberToKeep, MinLogNumberToKeep},
    {kNewFile2, NewFile2},
    {kNewFile3, NewFile3},
    {kNewFile4, NewFile4},
    {rocksdb_tags::kColumnFamily, ColumnFamilyField},
    {rocksdb_tags::kColumnFamilyAdd, ColumnFamilyAdd},
    {rocksdb_tags::kColumnFamilyDrop, ColumnFamilyDrop},
    {rocksdb_tags::kMaxColumnFamily, MaxColumnFamily},
    {rocksdb_tags::kInAtomicGroup, InAtomicGroup},
    {rocksdb_tags::kBlobFileAddition, BlobFileRecord},
    {rocksdb_tags::kBlobFileGarbage, BlobFileRecord},
};

// LevelDB knows no other tag; one of RocksDB's says so in the message (a RocksDB MANIFEST read as
// LevelDB's).
Status LevelDbUnknownTag(EditReader& in, std::uint32_t tag, std::size_t tag_at, VersionEdit&) {
  if (Find(kRocksDbTags, tag) != nullptr) {
    return in.Fail(tag_at, "a LevelDB version edit tag (1 to 9), found " + std::to_string(tag));
  }
  return in.Fail(tag_at,
                 "a known version edit tag (LevelDB: 1 to 9), found " + std::to_string(tag));
}

Status RocksDbUnknownTag(EditReader& in, std::uint32_t tag, std::size_t tag_at, VersionEdit&) {
  if ((tag & rocksdb_tags::kTagSafeIgnoreMask) != 0) {
    // A field a reader may skip (db id, WAL additions, ...): length-prefixed.
    return in.LengthPrefixed("an ignorable field").status();
  }
  return in.Fail(tag_at, "a known version edit tag (RocksDB), found " + std::to_string(tag));
}

constexpr EditFlavor kLevelDbEdits{kLevelDbLevels, kLevelDbTags, LevelDbUnknownTag};
constexpr EditFlavor kRocksDbEdits{kMaxLevels, kRocksDbTags, RocksDbUnknownTag};

const EditFlavor& EditFlavorOf(Flavor flavor) {
  switch (flavor) {
    case Flavor::kLevelDb: return kLevelDbEdits;
    case Flavor::kRocksDb: return kRocksDbEdits;
    case Flavor::kPebble: break;
  }
  return PebbleEdits();
}

}  // namespace

Status DecodeVersionEdit(const LogRecord& record, Flavor flavor, std::string_view source,
                         VersionEdit& edit) {
  const EditFlavor& fields = EditFlavorOf(flavor);
  EditReader in(record, source, fields.max_levels);
  while (!in.at_end()) {
    const std::size_t tag_at = in.position();
    std::uint32_t tag = 0;
    if (fields.wide_tags) {
      BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t wide, in.Varint64("a version edit tag"));
      if (wide > 0xffffffffu) {
        return in.Fail(tag_at, "a known version edit tag, found " + std::to_string(wide));
      }
      tag = static_cast<std::uint32_t>(wide);
    } else {
      BLOOMCODEC_ASSIGN_OR_RETURN(tag, in.Varint32("a version edit tag"));
    }
    const TagDecoder* decoder = Find(fields.tags, tag);
    BLOOMCODEC_RETURN_IF_ERROR(decoder != nullptr ? decoder->decode(in, edit)
                                                  : fields.unknown_tag(in, tag, tag_at, edit));
  }
  return Status();
}

}  // namespace bloomcodec::manifest
