// The repair's MANIFEST (see manifest_writer.h): new-file fields re-recorded, the repair edits,
// and the log format's framing.
#include "lsmrepair/manifest_writer.h"

#include <algorithm>
#include <map>

#include "blocktable/crc32c.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"
#include "manifest/edit_tags.h"

namespace bloomcodec::lsmrepair {
namespace {

std::string_view AsText(ByteSpan b) {
  return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
}

const manifest::CustomFieldSpan* FindCustom(const manifest::NewFileRecord& r, std::uint32_t tag) {
  for (const manifest::CustomFieldSpan& f : r.custom) {
    if (f.tag == tag) return &f;
  }
  return nullptr;
}

// The new tail size: the old one grown by what the file grew.
Result<ByteVector> NewTailSize(const TableReplacement& r, ByteSpan old_value) {
  ByteReader in(old_value, "tail size", 0);
  Result<std::uint64_t> old_tail = in.ReadVarint64("the tail size");
  const std::string where = "table " + std::to_string(r.old.number) + "'s MANIFEST record";
  if (!old_tail.ok() || !in.at_end() || *old_tail > r.old.size) {
    return Status::Unsupported(where + ": a tail size field that is not a varint within the file");
  }
  const std::uint64_t tail = *old_tail + r.new_size - r.old.size;
  if (r.new_size < r.old.size && *old_tail < r.old.size - r.new_size) {
    return Status::Internal(where + ": the rewritten file shrank by more than its tail");
  }
  ByteVector out;
  ByteWriter(out).PutVarint64(tail);
  return out;
}

}  // namespace

ChecksumNeed FileChecksumNeed(const manifest::NewFileRecord& record, std::string* function) {
  const manifest::CustomFieldSpan* value =
      FindCustom(record, manifest::rocksdb_tags::kCustomFileChecksum);
  const manifest::CustomFieldSpan* name =
      FindCustom(record, manifest::rocksdb_tags::kCustomFileChecksumFunction);
  if (value == nullptr || value->value_size == 0) return ChecksumNeed::kNone;
  const std::string_view fn = name ? AsText(record.Value(*name)) : std::string_view();
  if (function != nullptr) *function = std::string(fn);
  if (fn == kUnknownChecksumName) return ChecksumNeed::kNone;
  return fn == kCrc32cChecksumName ? ChecksumNeed::kCrc32c : ChecksumNeed::kUnsupported;
}

ByteVector Crc32cFileChecksum(std::uint32_t crc) {
  ByteVector out;
  ByteWriter(out).PutBigU32(crc);
  return out;
}

Result<ByteVector> EncodeReplacedNewFile(const TableReplacement& r) {
  const manifest::NewFileRecord& rec = r.old.record;
  if (rec.keys_at > rec.custom_at || rec.custom_at > rec.bytes.size()) {
    return Status::Internal("a new-file record whose parts are out of order");
  }
  ByteVector out;
  ByteWriter w(out);
  w.PutVarint32(rec.tag);
  w.PutVarint32(static_cast<std::uint32_t>(r.old.level));
  w.PutVarint64(r.new_number);
  if (rec.tag == manifest::kNewFile3) w.PutVarint32(r.old.path_id);
  w.PutVarint64(r.new_size);
  // Keys and sequence numbers as written.
  w.PutBytes(ByteSpan(rec.bytes.data() + rec.keys_at, rec.custom_at - rec.keys_at));
  if (rec.tag != manifest::kNewFile4) return out;
  const ChecksumNeed need = FileChecksumNeed(rec, nullptr);
  if (need == ChecksumNeed::kUnsupported) {
    return Status::Unsupported("table " + std::to_string(r.old.number) +
                               ": its file checksum function is not one bloomcodec computes");
  }
  if (need == ChecksumNeed::kCrc32c && !r.file_checksum) {
    return Status::Internal("table " + std::to_string(r.old.number) +
                            ": the new file's checksum was not computed");
  }
  for (const manifest::CustomFieldSpan& f : rec.custom) {
    ByteVector replaced;
    ByteSpan value = rec.Value(f);
    if (f.tag == manifest::rocksdb_tags::kCustomFileChecksum && need == ChecksumNeed::kCrc32c) {
      value = *r.file_checksum;
    } else if (f.tag == manifest::rocksdb_tags::kCustomTailSize) {
      BLOOMCODEC_ASSIGN_OR_RETURN(replaced, NewTailSize(r, value));
      value = replaced;
    }
    w.PutVarint32(f.tag);
    w.PutVarint32(static_cast<std::uint32_t>(value.size()));
    w.PutBytes(value);
  }
  w.PutVarint32(manifest::kCustomTerminate);
  return out;
}

void LogWriter::AddRecord(ByteSpan payload) {
  std::size_t done = 0;
  bool first = true;
  do {
    std::size_t left = manifest::kBlockSize - out_.size() % manifest::kBlockSize;
    if (left < manifest::kHeaderSize) {
      out_.insert(out_.end(), left, 0);
      left = manifest::kBlockSize;
    }
    const std::size_t n = std::min(payload.size() - done, left - manifest::kHeaderSize);
    const bool last = done + n == payload.size();
    const std::uint8_t type = first && last ? 1 : first ? 2 : last ? 4 : 3;
    // The checksum covers the type byte and the fragment.
    const std::uint32_t crc = blocktable::MaskCrc(
        blocktable::Crc32cExtend(blocktable::Crc32c(ByteSpan(&type, 1)), payload.subspan(done, n)));
    ByteWriter w(out_);
    w.PutLittleU32(crc);
    w.PutU8(static_cast<std::uint8_t>(n & 0xff));
    w.PutU8(static_cast<std::uint8_t>(n >> 8));
    w.PutU8(type);
    w.PutBytes(payload.subspan(done, n));
    done += n;
    first = false;
  } while (done < payload.size());
}

Result<std::vector<ByteVector>> RepairEdits(std::span<const TableReplacement> replaced,
                                            manifest::Flavor flavor, std::uint64_t next_file) {
  std::map<std::uint32_t, std::vector<const TableReplacement*>> by_family;
  for (const TableReplacement& r : replaced) by_family[r.column_family].push_back(&r);
  if (flavor == manifest::Flavor::kLevelDb && (by_family.size() > 1 || by_family.count(0) == 0)) {
    return Status::InvalidArgument("a LevelDB database has one column family (0)");
  }
  std::vector<ByteVector> edits;
  for (const auto& [family, tables] : by_family) {
    ByteVector edit;
    ByteWriter w(edit);
    if (family != 0) {
      w.PutVarint32(manifest::rocksdb_tags::kColumnFamily);
      w.PutVarint32(family);
    }
    for (const TableReplacement* r : tables) {
      w.PutVarint32(manifest::kDeletedFile);
      w.PutVarint32(static_cast<std::uint32_t>(r->old.level));
      w.PutVarint64(r->old.number);
    }
    for (const TableReplacement* r : tables) {
      BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector field, EncodeReplacedNewFile(*r));
      w.PutBytes(field);
    }
    edits.push_back(std::move(edit));
  }
  if (edits.empty()) edits.emplace_back();
  ByteWriter(edits.back()).PutVarint32(manifest::kNextFileNumber);
  ByteWriter(edits.back()).PutVarint64(next_file);
  return edits;
}

Result<ByteVector> BuildRepairManifest(std::span<const manifest::LogRecord> old_records,
                                       manifest::Flavor flavor,
                                       std::span<const TableReplacement> replaced,
                                       std::uint64_t next_file) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<ByteVector> edits,
                              RepairEdits(replaced, flavor, next_file));
  ByteVector out;
  LogWriter log(out);
  for (const manifest::LogRecord& r : old_records) log.AddRecord(r.payload);
  for (const ByteVector& e : edits) log.AddRecord(e);
  return out;
}

}  // namespace bloomcodec::lsmrepair
