// Pebble's table footer (formats/pebble/FORMAT.md §2): the version decides the layout; the row
// formats Pebblev1..v4 share RocksDB's 53-byte versioned footer under Pebble's magic.
#include <string>

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

}  // namespace

std::string PebbleFormatName(std::uint32_t version) { return "Pebblev" + std::to_string(version); }

bool HasPebbleTableMagic(ByteSpan file) {
  return file.size() >= kMinTableSize && blocktable::TrailingMagic(file) == kPebbleTableMagic;
}

Result<PebbleFooter> DecodePebbleFooter(ByteSpan file, std::string_view source) {
  const std::string src(source);
  if (file.size() < kMinTableSize) {
    return Status::Corrupt(src, 0, "a Pebble table of at least 48 bytes",
                           std::to_string(file.size()) + " bytes");
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
  if (out.version > kLastRowFormat) {
    return Status::Unsupported(src + ": " + PebbleFormatName(out.version) +
                               " table (columnar blocks): bloomcodec reads Pebble's row-based "
                               "tables (Pebblev1..Pebblev4) only");
  }
  // A row-format footer is 53 bytes, more than the 48 a file must hold to be looked at.
  if (file.size() < blocktable::kVersionedFooterSize) {
    return Status::Corrupt(src, 0,
                           "a " + PebbleFormatName(out.version) + " table of at least " +
                               std::to_string(blocktable::kVersionedFooterSize) +
                               " bytes (its footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t footer_at = file.size() - blocktable::kVersionedFooterSize;
  const std::uint8_t type = file[footer_at];
  if (type != static_cast<std::uint8_t>(ChecksumType::kCrc32c) &&
      type != static_cast<std::uint8_t>(ChecksumType::kXxHash64)) {
    return Status::Corrupt(src, footer_at, "checksum type 1 (CRC-32C) or 3 (XXHash64)",
                           std::to_string(type));
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
  blocktable::Footer f = footer.footer;
  f.magic = kPebbleTableMagic;
  f.format_version = footer.version;
  blocktable::AppendFooter(f, out);
}

}  // namespace bloomcodec::pebble
