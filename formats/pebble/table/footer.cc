// Pebble's table footer (formats/pebble/FORMAT.md §2): the version decides the layout; Pebblev1..v5
// share RocksDB's 53-byte versioned footer under Pebble's magic, Pebblev6 adds a footer checksum
// (57 bytes), Pebblev7 and v8 the attributes before it (61 bytes).
#include <algorithm>
#include <string>

#include "blocktable/crc32c.h"
#include "codec/byte_reader.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

using blocktable::BlockHandle;
using blocktable::ChecksumType;

namespace {

// Pebble reads no file shorter than LevelDB's footer (§2.2 step 1).
constexpr std::size_t kMinTableSize = 48;
// The version sits 12 bytes from the end in every Pebble footer layout.
constexpr std::size_t kVersionFromEnd = 12;

std::uint32_t LoadU32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

Result<BlockHandle> ReadHandle(ByteReader& r, std::uint64_t footer_at, std::string_view what) {
  const std::uint64_t at = r.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, blocktable::ReadBlockHandle(r, what));
  if (h.offset > footer_at || h.size > footer_at - h.offset ||
      footer_at - h.offset - h.size < blocktable::kBlockTrailerSize) {
    return Status::Corrupt(r.source(), at,
                           "a " + std::string(what) + " handle inside the " +
                               std::to_string(footer_at) + " bytes before the footer",
                           "offset " + std::to_string(h.offset) + ", size " +
                               std::to_string(h.size));
  }
  return h;
}

// Where the v6+ footer checksum sits inside the footer, and the footer's size (§2.1).
std::size_t FooterSizeOf(std::uint32_t version) {
  return version >= kAttributesFormat ? 61 : version >= kFooterChecksumFormat ? 57 : 53;
}
std::size_t FooterChecksumAt(std::uint32_t version) {
  return version >= kAttributesFormat ? 45 : 41;
}

std::string ToHex32(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 7; i >= 0; --i) s.push_back(kDigits[(v >> (4 * i)) & 0xf]);
  return s;
}

// The masked CRC-32C of the footer without its 4 checksum bytes (Pebble's crc.Value()).
std::uint32_t FooterChecksum(ByteSpan footer, std::size_t checksum_at) {
  std::uint32_t crc = blocktable::Crc32c(footer.first(checksum_at));
  crc = blocktable::Crc32cExtend(crc, footer.subspan(checksum_at + 4));
  return blocktable::MaskCrc(crc);
}

}  // namespace

std::string PebbleFormatName(std::uint32_t version) { return "Pebblev" + std::to_string(version); }

std::string PebbleFooterFormatName(const PebbleFooter& footer) {
  if (footer.version != 0) return PebbleFormatName(footer.version);
  return footer.footer.has_leveldb_magic() ? "LevelDB" : "RocksDBv2";
}

bool HasPebbleTableMagic(ByteSpan file) {
  return file.size() >= kMinTableSize && blocktable::TrailingMagic(file) == kPebbleTableMagic;
}

namespace {

// TableFormatRocksDBv2 and TableFormatLevelDB (§2.2 step 3): RocksDB's footer rules, then
// Pebble's narrower ones: footer version 2 only, checksum type 1 or 3.
Result<PebbleFooter> DecodeRocksDbFormatFooter(ByteSpan file, const std::string& src) {
  PebbleFooter out;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      out.footer, blocktable::DecodeFooter(file, src, blocktable::TableFamily::kRocksDb));
  const blocktable::Footer& f = out.footer;
  if (!f.has_leveldb_magic() && f.format_version != 2) {
    return Status::Unsupported(src + ": byte " + std::to_string(file.size() - kVersionFromEnd) +
                               ": RocksDB table format_version " +
                               std::to_string(f.format_version) +
                               "; Pebble reads RocksDB's tables of version 2 only");
  }
  if (f.checksum != ChecksumType::kCrc32c && f.checksum != ChecksumType::kXxHash64) {
    return Status::Corrupt(src, file.size() - blocktable::kVersionedFooterSize,
                           "checksum type 1 (CRC-32C) or 3 (XXHash64)",
                           std::to_string(static_cast<int>(f.checksum)));
  }
  return out;
}

}  // namespace

Result<PebbleFooter> DecodePebbleFooter(ByteSpan file, std::string_view source,
                                        PebbleFooters accepted) {
  const std::string src(source);
  if (file.size() < kMinTableSize) {
    return Status::Corrupt(src, 0, "a Pebble table of at least 48 bytes",
                           std::to_string(file.size()) + " bytes");
  }
  if (accepted == PebbleFooters::kPebbleAndRocksDb &&
      (blocktable::HasLevelDbTableMagic(file) || blocktable::HasBlockBasedTableMagic(file))) {
    return DecodeRocksDbFormatFooter(file, src);
  }
  if (blocktable::TrailingMagic(file) != kPebbleTableMagic) {
    return Status::Corrupt(src, file.size() - 8, "Pebble's table magic f09faab3f09faab3",
                           ToHex(file.last(8)));
  }
  PebbleFooter out;
  const std::uint64_t version_at = file.size() - kVersionFromEnd;
  out.version = LoadU32(file.data() + version_at);
  if (out.version == 0) {
    return Status::Corrupt(src, version_at, "a Pebble table format version (1..8)", "0");
  }
  if (out.version > kLastKnownFormat) {
    return Status::Unsupported(src + ": byte " + std::to_string(version_at) +
                               ": Pebble table format version " + std::to_string(out.version) +
                               ", newer than any Pebble we know (Pebblev1..Pebblev8)");
  }
  // A footer is 53 to 61 bytes, more than the 48 a file must hold to be looked at.
  const std::size_t footer_size = FooterSizeOf(out.version);
  if (file.size() < footer_size) {
    return Status::Corrupt(src, 0,
                           "a " + PebbleFormatName(out.version) + " table of at least " +
                               std::to_string(footer_size) + " bytes (its footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t footer_at = file.size() - footer_size;
  const std::uint8_t type = file[footer_at];
  if (type != static_cast<std::uint8_t>(ChecksumType::kCrc32c) &&
      type != static_cast<std::uint8_t>(ChecksumType::kXxHash64)) {
    return Status::Corrupt(src, footer_at, "checksum type 1 (CRC-32C) or 3 (XXHash64)",
                           std::to_string(type));
  }
  if (out.version >= kFooterChecksumFormat) {
    const ByteSpan footer = file.subspan(footer_at);
    const std::size_t at = FooterChecksumAt(out.version);
    const std::uint32_t stored = LoadU32(footer.data() + at);
    const std::uint32_t computed = FooterChecksum(footer, at);
    if (stored != computed) {
      return Status::Corrupt(src, footer_at + at,
                             "the footer checksum " + ToHex32(computed) +
                                 " (masked CRC-32C of the footer; Pebble: footer corrupted, "
                                 "checksum mismatch)",
                             ToHex32(stored));
    }
    if (out.version >= kAttributesFormat) out.attributes = LoadU32(footer.data() + 41);
  }
  blocktable::Footer& f = out.footer;
  f.magic = kPebbleTableMagic;
  f.format_version = out.version;
  f.checksum = static_cast<ChecksumType>(type);
  ByteReader r(file.subspan(footer_at + 1, 40), src, footer_at + 1);
  BLOOMCODEC_ASSIGN_OR_RETURN(f.metaindex_handle, ReadHandle(r, footer_at, "metaindex block"));
  BLOOMCODEC_ASSIGN_OR_RETURN(f.index_handle, ReadHandle(r, footer_at, "index block"));
  return out;
}

void AppendPebbleFooter(const PebbleFooter& footer, ByteVector& out) {
  if (footer.version == 0) {  // RocksDBv2 or LevelDB: RocksDB's footer under its own magic
    blocktable::AppendFooter(footer.footer, out);
    return;
  }
  blocktable::Footer f = footer.footer;
  f.magic = kPebbleTableMagic;
  // RocksDB's format_version 6 footer is another layout: the first 41 bytes are the v5 ones.
  f.format_version = std::min(footer.version, kLastRowFormat + 1);
  const std::size_t start = out.size();
  blocktable::AppendFooter(f, out);
  if (footer.version < kFooterChecksumFormat) return;
  // The same first 41 bytes; then [attributes], checksum, version, magic.
  out.resize(start + 41);
  auto put32 = [&out](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  if (footer.version >= kAttributesFormat) put32(footer.attributes);
  const std::size_t checksum_at = out.size() - start;
  put32(0);
  put32(footer.version);
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<std::uint8_t>(kPebbleTableMagic >> (8 * i)));
  const std::uint32_t c = FooterChecksum(ByteSpan(out).subspan(start), checksum_at);
  for (int i = 0; i < 4; ++i)
    out[start + checksum_at + i] = static_cast<std::uint8_t>(c >> (8 * i));
}

}  // namespace bloomcodec::pebble
