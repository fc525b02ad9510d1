// Internal to formats/manifest: the reader of one version edit's fields and the tag tables each
// flavor's decoders fill (version_edit.cc for LevelDB and RocksDB, pebble_edit.cc for Pebble).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bloomcodec/status.h"
#include "codec/byte_reader.h"
#include "manifest/edit_tags.h"
#include "manifest/manifest.h"
#include "manifest/version_edit.h"

namespace bloomcodec::manifest {

// The fields of one edit, read in order. A value that does not decode fails with what was
// expected and the value's offset in the file (the edit's fragments may be spread over blocks).
class EditReader {
 public:
  EditReader(const LogRecord& record, std::string_view source, int max_levels)
      : record_(record),
        source_(source),
        reader_(ByteSpan(record.payload.data(), record.payload.size()), source, 0),
        max_levels_(max_levels) {}

  bool at_end() const { return reader_.at_end(); }
  std::size_t position() const { return reader_.position(); }
  // The edit's bytes [from, to) (positions of this reader).
  ByteSpan Bytes(std::size_t from, std::size_t to) const {
    return ByteSpan(record_.payload.data() + from, to - from);
  }

  // A failure at `at`, a position in the edit.
  Status Fail(std::size_t at, std::string what) const {
    return Status::Corrupt(std::string(source_), record_.FileOffset(at), std::move(what));
  }

  Result<std::uint32_t> Varint32(std::string_view what) {
    const std::size_t at = reader_.position();
    Result<std::uint32_t> v = reader_.ReadVarint32(what);
    if (!v.ok()) return Fail(at, std::string(what) + " (a varint32)");
    return v;
  }

  Result<std::uint64_t> Varint64(std::string_view what) {
    const std::size_t at = reader_.position();
    Result<std::uint64_t> v = reader_.ReadVarint64(what);
    if (!v.ok()) return Fail(at, std::string(what) + " (a varint64)");
    return v;
  }

  // A varint32 length and that many bytes.
  Result<ByteSpan> LengthPrefixed(std::string_view what) {
    const std::size_t at = reader_.position();
    Result<std::uint32_t> n = reader_.ReadVarint32(what);
    if (!n.ok()) return Fail(at, std::string(what) + " (a varint32 length)");
    if (*n > reader_.remaining()) {
      return Fail(at, std::string(what) + " of " + std::to_string(*n) + " bytes within the edit (" +
                          std::to_string(reader_.remaining()) + " left)");
    }
    return reader_.ReadBytes(*n, what);
  }

  // A level (a varint32) below the flavor's level count.
  Result<int> Level(std::string_view what) {
    const std::size_t at = reader_.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t v, Varint32(what));
    if (v >= static_cast<std::uint32_t>(max_levels_)) {
      return Fail(at, std::string(what) + " below " + std::to_string(max_levels_) + ", found " +
                          std::to_string(v));
    }
    return static_cast<int>(v);
  }

  // A varint64 length and that many bytes (Pebble reads every length as a uvarint64).
  Result<ByteSpan> LengthPrefixed64(std::string_view what) {
    const std::size_t at = reader_.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, Varint64(std::string(what) + "'s length"));
    if (n > reader_.remaining()) {
      return Fail(at, std::string(what) + " of " + std::to_string(n) + " bytes within the edit (" +
                          std::to_string(reader_.remaining()) + " left)");
    }
    return reader_.ReadBytes(n, what);
  }

  Result<std::uint8_t> Byte(std::string_view what) {
    const std::size_t at = reader_.position();
    Result<std::uint8_t> v = reader_.ReadU8(what);
    if (!v.ok()) return Fail(at, std::string(what) + " (a byte)");
    return v;
  }

  std::size_t remaining() const { return reader_.remaining(); }

  // A length-prefixed internal key: a user key and its 8-byte tag.
  Result<ByteVector> InternalKey(std::string_view what) {
    const std::size_t at = reader_.position();
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan k, LengthPrefixed(what));
    if (k.size() < 8) {
      return Fail(at, std::string(what) + " of at least 8 bytes (an internal key), found " +
                          std::to_string(k.size()));
    }
    return ByteVector(k.begin(), k.end());
  }

 private:
  const LogRecord& record_;
  std::string_view source_;
  ByteReader reader_;
  int max_levels_;
};

// Decodes the value of one field (its tag read already) into `edit`.
using FieldDecoder = Status (*)(EditReader& in, VersionEdit& edit);

struct TagDecoder {
  std::uint32_t tag;
  FieldDecoder decode;
};

inline Status DeletedFile(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(int level, in.Level("a deleted file's level"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t number, in.Varint64("a deleted file's number"));
  edit.deleted.push_back({level, number});
  return Status();
}

// The numbers every flavor records with LevelDB's tags and encoding (a varint64 each): Pebble
// and RocksDB kept tags 2, 3, 4 and 9 as LevelDB defined them, so one decoder serves all three.
inline Status LogNumber(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.log_number, in.Varint64("the log number"));
  return Status();
}

inline Status NextFileNumber(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.next_file, in.Varint64("the next file number"));
  return Status();
}

inline Status LastSequence(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.last_sequence, in.Varint64("the last sequence number"));
  return Status();
}

inline Status PrevLogNumber(EditReader& in, VersionEdit& edit) {
  BLOOMCODEC_ASSIGN_OR_RETURN(edit.prev_log_number, in.Varint64("the previous log number"));
  return Status();
}

// What a flavor does with a tag its table lacks; `tag_at` is where the tag starts.
using UnknownTagDecoder = Status (*)(EditReader& in, std::uint32_t tag, std::size_t tag_at,
                                     VersionEdit& edit);

struct EditFlavor {
  int max_levels;
  std::span<const TagDecoder> tags;
  UnknownTagDecoder unknown_tag;
  // Pebble reads tags as uvarint64 (LevelDB and RocksDB as varint32): a tag past 32 bits is
  // then an unknown tag, not a bad varint.
  bool wide_tags = false;
};

inline const TagDecoder* Find(std::span<const TagDecoder> tags, std::uint32_t tag) {
  for (const TagDecoder& d : tags) {
    if (d.tag == tag) return &d;
  }
  return nullptr;
}

// Pebble's tag table (pebble_edit.cc).
const EditFlavor& PebbleEdits();

}  // namespace bloomcodec::manifest
