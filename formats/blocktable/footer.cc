#include "blocktable/footer.h"

#include <algorithm>
#include <boost/endian/conversion.hpp>
#include <string>

#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {

namespace {

std::string Hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

std::string FooterHex32(std::uint32_t v) { return "0x" + Hex64(v).substr(10); }

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
  if (file.size() < kLevelDbFooterSize) {
    return Status::Corrupt(std::string(source), 0, "a table of at least 48 bytes (the footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t footer_at = file.size() - kLevelDbFooterSize;
  ByteReader reader(file.subspan(footer_at), source, footer_at);
  BLOOMCODEC_RETURN_IF_ERROR(reader.Skip(40, "footer handles"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t magic, reader.ReadLittleU64("table magic"));
  if (magic != kLevelDbTableMagic) {
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
  footer.format_version = boost::endian::load_little_u32(file.data() + magic_at - 4);
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
        " is newer than RocksDB 10.5 writes or reads (0..7); bloomcodec reads 0..7");
  }
  if (footer.format_version == 0) {
    return Status::Corrupt(src, magic_at - 4, "format_version 1..7 with the block-based magic",
                           "0");
  }
  return Status();
}

// The footer checksum of format_version >= 6: the 53 bytes at `footer` with bytes 5..8 (the
// checksum) zeroed, checksummed as a block of 52 bytes and a last byte, plus the context.
std::uint32_t FooterChecksum(ChecksumType type, const std::uint8_t* footer,
                             std::uint32_t base_context_checksum, std::uint64_t footer_at) {
  std::uint8_t copy[kVersionedFooterSize];
  std::copy(footer, footer + kVersionedFooterSize, copy);
  std::fill(copy + 5, copy + 9, std::uint8_t{0});
  return BlockChecksum(type, ByteSpan(copy, kVersionedFooterSize - 1),
                       copy[kVersionedFooterSize - 1]) +
         ContextModifier(base_context_checksum, footer_at);
}

// Part 2 of a format_version >= 6 footer: extended magic, checksum, base context checksum, the
// implicit metaindex handle, reserved bytes.
Status DecodeContextFields(ByteSpan file, const std::string& src, Footer& footer) {
  const std::uint64_t footer_at = file.size() - kVersionedFooterSize;
  const std::uint8_t* f = file.data() + footer_at;
  if (!std::equal(f + 1, f + 5, kExtendedMagic)) {
    return Status::Corrupt(src, footer_at + 1,
                           "the extended magic 3e 00 7a 00 of a format_version " +
                               std::to_string(footer.format_version) + " footer",
                           ToHex(file.subspan(footer_at + 1, 4)));
  }
  footer.footer_checksum = boost::endian::load_little_u32(f + 5);
  footer.base_context_checksum = boost::endian::load_little_u32(f + 9);
  if (footer.base_context_checksum == 0) {
    return Status::Corrupt(src, footer_at + 9, "a base context checksum other than 0", "0");
  }
  const std::uint32_t computed =
      FooterChecksum(footer.checksum, f, footer.base_context_checksum, footer_at);
  if (computed != footer.footer_checksum) {
    return Status::Corrupt(src, footer_at + 5,
                           std::string(ChecksumTypeName(footer.checksum)) + " footer checksum " +
                               FooterHex32(computed),
                           FooterHex32(footer.footer_checksum));
  }
  const std::uint32_t metaindex_size = boost::endian::load_little_u32(f + 13);
  // The metaindex block and its 5-byte trailer end where the footer starts.
  if (std::uint64_t{metaindex_size} + kBlockTrailerSize > footer_at) {
    return Status::Corrupt(
        src, footer_at + 13,
        "a metaindex size that fits before the footer (at most " +
            std::to_string(footer_at >= kBlockTrailerSize ? footer_at - kBlockTrailerSize : 0) +
            ")",
        std::to_string(metaindex_size));
  }
  footer.metaindex_handle = {footer_at - kBlockTrailerSize - metaindex_size, metaindex_size};
  footer.index_handle = {};
  for (int i = 33; i < 41; ++i) {
    if (f[i] != 0) {
      return Status::Unsupported(src + ": byte " + std::to_string(footer_at + i) +
                                 ": the footer's reserved bytes 33..40 are not zero: a RocksDB "
                                 "feature newer than 10.5 that bloomcodec does not know");
    }
  }
  return Status();
}

Result<Footer> DecodeRocksDbFooter(ByteSpan file, std::string_view source) {
  const std::string src(source);
  if (file.size() < kLevelDbFooterSize) {
    return Status::Corrupt(src, 0, "an SST file of at least 48 bytes (the footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t magic = TrailingMagic(file);
  const std::uint64_t magic_at = file.size() - 8;
  Footer footer;
  footer.magic = magic;
  std::uint64_t handles_at = 0;
  if (magic == kLevelDbTableMagic) {
    handles_at = file.size() - kLevelDbFooterSize;  // format_version 0, CRC-32C: the defaults
  } else if (magic == kBlockBasedTableMagic) {
    if (file.size() < kVersionedFooterSize) {
      return Status::Corrupt(src, 0, "an SST file of at least 53 bytes (the footer)",
                             std::to_string(file.size()) + " bytes");
    }
    BLOOMCODEC_RETURN_IF_ERROR(DecodeVersionedFields(file, src, footer));
    if (footer.context_checksums()) {
      BLOOMCODEC_RETURN_IF_ERROR(DecodeContextFields(file, src, footer));
      return footer;
    }
    handles_at = file.size() - kVersionedFooterSize + 1;
  } else if (magic == kPlainTableMagic || magic == kPlainTableFormatVersion0Magic ||
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

bool HasLevelDbTableMagic(ByteSpan file) {
  return file.size() >= kLevelDbFooterSize && TrailingMagic(file) == kLevelDbTableMagic;
}

bool HasBlockBasedTableMagic(ByteSpan file) {
  return file.size() >= kVersionedFooterSize && TrailingMagic(file) == kBlockBasedTableMagic;
}

Result<Footer> DecodeFooter(ByteSpan file, std::string_view source, TableFamily family) {
  if (family == TableFamily::kLevelDb) return DecodeLevelDbFooter(file, source);
  return DecodeRocksDbFooter(file, source);
}

void AppendFooter(const Footer& footer, ByteVector& out, std::uint64_t out_offset) {
  const std::size_t start = out.size();
  if (footer.context_checksums()) {
    out.push_back(static_cast<std::uint8_t>(footer.checksum));
    out.insert(out.end(), kExtendedMagic, kExtendedMagic + 4);
    ByteWriter w(out);
    w.PutLittleU32(0);  // the checksum, computed below
    w.PutLittleU32(footer.base_context_checksum);
    w.PutLittleU32(static_cast<std::uint32_t>(footer.metaindex_handle.size));
    out.resize(out.size() + 24, 0);
    w.PutLittleU32(footer.format_version);
    w.PutLittleU64(footer.magic);
    const std::uint32_t checksum = FooterChecksum(footer.checksum, out.data() + start,
                                                  footer.base_context_checksum, out_offset + start);
    for (int i = 0; i < 4; ++i) out[start + 5 + i] = static_cast<std::uint8_t>(checksum >> (8 * i));
    return;
  }
  if (!footer.has_leveldb_magic()) out.push_back(static_cast<std::uint8_t>(footer.checksum));
  AppendBlockHandle(footer.metaindex_handle, out);
  AppendBlockHandle(footer.index_handle, out);
  // Zero padding up to the fixed-size fields (the handles take at most their 20 bytes each).
  out.resize(start + (footer.has_leveldb_magic() ? 0 : 1) + 2 * kMaxEncodedHandleSize, 0);
  ByteWriter w(out);
  if (!footer.has_leveldb_magic()) w.PutLittleU32(footer.format_version);
  w.PutLittleU64(footer.magic);
}

TrailerFormat TrailerFormatOf(const Footer& footer, TableFamily family) {
  TrailerFormat f;
  f.family = family;
  f.checksum = footer.checksum;
  f.format_version = footer.format_version;
  f.base_context_checksum = footer.context_checksums() ? footer.base_context_checksum : 0;
  return f;
}

}  // namespace bloomcodec::blocktable
