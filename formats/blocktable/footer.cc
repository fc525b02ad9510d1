#include "blocktable/footer.h"

#include <string>

#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {

namespace {

std::uint32_t LoadLittleU32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

std::string Hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

// Both handles, read from `handles_at` (the footer's start, or the byte after the checksum
// type); `body` is where the footer starts. LevelDB and RocksDB ignore the padding after them.
Status DecodeHandles(ByteSpan file, std::string_view source, std::uint64_t handles_at,
                     std::uint64_t body, Footer& footer) {
  ByteReader handles(file.subspan(handles_at, 2 * kMaxEncodedHandleSize), source, handles_at);
  BLOOMCODEC_ASSIGN_OR_RETURN(footer.metaindex_handle,
                              ReadBlockHandle(handles, "metaindex block handle"));
  const std::uint64_t index_at = handles.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(footer.index_handle, ReadBlockHandle(handles, "index block handle"));
  BLOOMCODEC_RETURN_IF_ERROR(
      CheckHandleInFile(footer.metaindex_handle, body, source, handles_at, "metaindex block"));
  return CheckHandleInFile(footer.index_handle, body, source, index_at, "index block");
}

Result<Footer> DecodeLevelDbFooter(ByteSpan file, std::string_view source) {
  if (file.size() < kLegacyFooterSize) {
    return Status::Corrupt(std::string(source), 0, "a table of at least 48 bytes (the footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t footer_at = file.size() - kLegacyFooterSize;
  ByteReader reader(file.subspan(footer_at), source, footer_at);
  BLOOMCODEC_RETURN_IF_ERROR(reader.Skip(40, "footer handles"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t magic, reader.ReadLittleU64("table magic"));
  if (magic != kLegacyTableMagic) {
    return Status::Corrupt(std::string(source), footer_at + 40,
                           "LevelDB table magic 57 fb 80 8b 24 75 47 db",
                           ToHex(file.subspan(footer_at + 40)));
  }
  Footer footer;
  BLOOMCODEC_RETURN_IF_ERROR(DecodeHandles(file, source, footer_at, footer_at, footer));
  return footer;
}

// The versioned footer's checksum type and format_version, checked.
Status DecodeVersionedFields(ByteSpan file, const std::string& src, Footer& footer) {
  const std::uint64_t magic_at = file.size() - 8;
  const std::uint64_t footer_at = file.size() - kVersionedFooterSize;
  footer.format_version = LoadLittleU32(file.data() + magic_at - 4);
  // RocksDB reads the checksum type as a varint32; every valid type is one byte.
  const std::uint8_t checksum = file[footer_at];
  if (checksum > static_cast<std::uint8_t>(ChecksumType::kXxh3)) {
    return Status::Corrupt(src, footer_at,
                           "checksum type 0 (none), 1 (crc32c), 2 (xxhash), 3 (xxhash64) or "
                           "4 (xxh3) in the footer",
                           std::to_string(checksum));
  }
  footer.checksum = static_cast<ChecksumType>(checksum);
  if (footer.format_version > kMaxFormatVersion) {
    return Status::Unsupported(
        src + ": byte " + std::to_string(magic_at - 4) + ": format_version " +
        std::to_string(footer.format_version) +
        " is newer than RocksDB 7.8 writes or reads (0..5); bloomcodec reads 0..5");
  }
  if (footer.format_version == 0) {
    return Status::Corrupt(src, magic_at - 4, "format_version 1..5 with the block-based magic",
                           "0");
  }
  return Status();
}

Result<Footer> DecodeRocksDbFooter(ByteSpan file, std::string_view source) {
  const std::string src(source);
  if (file.size() < kLegacyFooterSize) {
    return Status::Corrupt(src, 0, "an SST file of at least 48 bytes (the footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t magic = TrailingMagic(file);
  const std::uint64_t magic_at = file.size() - 8;
  Footer footer;
  footer.magic = magic;
  std::uint64_t handles_at = 0;
  if (magic == kLegacyTableMagic) {
    handles_at = file.size() - kLegacyFooterSize;  // format_version 0, CRC-32C: the defaults
  } else if (magic == kBlockBasedTableMagic) {
    if (file.size() < kVersionedFooterSize) {
      return Status::Corrupt(src, 0, "an SST file of at least 53 bytes (the footer)",
                             std::to_string(file.size()) + " bytes");
    }
    BLOOMCODEC_RETURN_IF_ERROR(DecodeVersionedFields(file, src, footer));
    handles_at = file.size() - kVersionedFooterSize + 1;
  } else if (magic == kPlainTableMagic || magic == kLegacyPlainTableMagic ||
             magic == kCuckooTableMagic) {
    return Status::Unsupported(
        src + ": byte " + std::to_string(magic_at) + ": a RocksDB " +
        (magic == kCuckooTableMagic ? "cuckoo" : "plain") + " table (magic " + Hex64(magic) +
        "); bloomcodec reads block-based tables only (they alone carry filters)");
  } else {
    return Status::Corrupt(src, magic_at,
                           "a block-based table magic (0x88e241b785f4cff7, or LevelDB's "
                           "0xdb4775248b80fb57)",
                           Hex64(magic));
  }
  BLOOMCODEC_RETURN_IF_ERROR(
      DecodeHandles(file, source, handles_at, file.size() - footer.size(), footer));
  return footer;
}

}  // namespace

std::uint64_t TrailingMagic(ByteSpan file) {
  if (file.size() < 8) return 0;
  std::uint64_t magic = 0;
  for (int i = 7; i >= 0; --i) magic = (magic << 8) | file[file.size() - 8 + i];
  return magic;
}

bool HasLegacyTableMagic(ByteSpan file) {
  return file.size() >= kLegacyFooterSize && TrailingMagic(file) == kLegacyTableMagic;
}

bool HasBlockBasedTableMagic(ByteSpan file) {
  return file.size() >= kVersionedFooterSize && TrailingMagic(file) == kBlockBasedTableMagic;
}

Result<Footer> DecodeFooter(ByteSpan file, std::string_view source, TableFamily family) {
  if (family == TableFamily::kLevelDb) return DecodeLevelDbFooter(file, source);
  return DecodeRocksDbFooter(file, source);
}

void AppendFooter(const Footer& footer, ByteVector& out) {
  const std::size_t start = out.size();
  if (!footer.legacy()) out.push_back(static_cast<std::uint8_t>(footer.checksum));
  AppendBlockHandle(footer.metaindex_handle, out);
  AppendBlockHandle(footer.index_handle, out);
  // Zero padding up to the fixed-size fields (the handles take at most their 20 bytes each).
  out.resize(start + (footer.legacy() ? 0 : 1) + 2 * kMaxEncodedHandleSize, 0);
  ByteWriter w(out);
  if (!footer.legacy()) w.PutLittleU32(footer.format_version);
  w.PutLittleU64(footer.magic);
}

TrailerFormat TrailerFormatOf(const Footer& footer, TableFamily family) {
  TrailerFormat f;
  f.family = family;
  f.checksum = footer.checksum;
  f.format_version = footer.format_version;
  return f;
}

}  // namespace bloomcodec::blocktable
