// The footer at the end of a block-based table: LevelDB's 48 bytes (which RocksDB reads as
// format_version 0) and RocksDB's 53 bytes (format_version 1..5).
//
//   using namespace bloomcodec::blocktable;
//   BLOOMCODEC_ASSIGN_OR_RETURN(Footer footer,
//                               DecodeFooter(file, "000012.sst", TableFamily::kRocksDb));
//   // footer.index_handle -> the index block, footer.metaindex_handle -> the metaindex block
//
// Compatibility contract (LevelDB's table/format.{h,cc}; RocksDB 7.8's table/format.cc):
// * Legacy footer: both handles, zero padding to byte 40, then the LE magic 0xdb4775248b80fb57
//   (LevelDB's table magic, RocksDB's kLegacyBlockBasedTableMagicNumber): format_version 0,
//   CRC-32C.
// * Versioned footer: checksum type byte, both handles, zero padding to byte 41, LE u32
//   format_version, LE u64 magic 0x88e241b785f4cff7.
// * The LevelDB family accepts only the legacy footer. The RocksDB family accepts both, refuses
//   format_version above 5 (6 came after RocksDB 7.8) and the plain / cuckoo table magics as
//   Unsupported.
// Decoding is strict (magic, varints, handles inside the file before the footer) and reports
// errors at absolute file offsets, worded per family as each reader always has.
//
// RocksDB's format_version 6 and 7 footers (an extended magic, a footer checksum and the base
// of context checksums) are to be decoded here, into more fields of Footer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blocktable/block_handle.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

inline constexpr std::uint64_t kLegacyTableMagic = 0xdb4775248b80fb57ull;
inline constexpr std::uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
inline constexpr std::uint64_t kPlainTableMagic = 0x8242229663bf9564ull;
inline constexpr std::uint64_t kLegacyPlainTableMagic = 0x4f3418eb7a8f13b8ull;
inline constexpr std::uint64_t kCuckooTableMagic = 0x926789d0c5f17873ull;
inline constexpr std::size_t kLegacyFooterSize = 48;
inline constexpr std::size_t kVersionedFooterSize = 53;
inline constexpr std::uint32_t kMaxFormatVersion = 5;  // RocksDB 7.8 reads 0..5

// What a footer says. The defaults are the footer LevelDB writes.
struct Footer {
  std::uint64_t magic = kLegacyTableMagic;
  std::uint32_t format_version = 0;
  ChecksumType checksum = ChecksumType::kCrc32c;
  BlockHandle metaindex_handle;
  BlockHandle index_handle;
  bool legacy() const { return magic == kLegacyTableMagic; }
  std::size_t size() const { return legacy() ? kLegacyFooterSize : kVersionedFooterSize; }
};

// The magic in the last 8 bytes (0 if the file is shorter).
std::uint64_t TrailingMagic(ByteSpan file);
// True when the file ends in the legacy (LevelDB) magic and is long enough for its footer.
bool HasLegacyTableMagic(ByteSpan file);
// True when the file ends in the block-based magic of format_version >= 1 (not LevelDB's).
bool HasBlockBasedTableMagic(ByteSpan file);

// Decodes the footer at the end of `file` under the family's rules; both handles must point
// inside the file before the footer.
Result<Footer> DecodeFooter(ByteSpan file, std::string_view source, TableFamily family);
// Appends the footer's bytes (48 for the legacy magic, else 53).
void AppendFooter(const Footer& footer, ByteVector& out);

// How the table's block trailers are read.
TrailerFormat TrailerFormatOf(const Footer& footer, TableFamily family);

}  // namespace bloomcodec::blocktable
