// The footer at the end of a block-based table: LevelDB's 48 bytes (which RocksDB reads as
// format_version 0) and RocksDB's 53 bytes (format_version 1..7).
//
//   using namespace bloomcodec::blocktable;
//   BLOOMCODEC_ASSIGN_OR_RETURN(Footer footer,
//                               DecodeFooter(file, "000012.sst", TableFamily::kRocksDb));
//   // footer.index_handle -> the index block, footer.metaindex_handle -> the metaindex block
//
// Compatibility contract (LevelDB's table/format.{h,cc}; RocksDB 7.8's table/format.cc):
// * LevelDB's footer (RocksDB's format_version 0 footer): both handles, zero padding to byte 40,
//   then the LE magic 0xdb4775248b80fb57 (LevelDB's table magic, which RocksDB names
//   kLegacyBlockBasedTableMagicNumber): format_version 0, CRC-32C.
// * Versioned footer: checksum type byte, both handles, zero padding to byte 41, LE u32
//   format_version, LE u64 magic 0x88e241b785f4cff7.
// * format_version 6 and 7 (RocksDB 8.6 onwards; table/format.cc FooterBuilder, Footer::DecodeFrom
//   of 9.7): the same 53 bytes, but after the checksum type come the extended magic 3e 00 7a 00,
//   an LE u32 footer checksum, an LE u32 base_context_checksum (never 0), an LE u32 metaindex
//   size, 16 ignored bytes and 8 bytes that must be zero (else a future feature: Unsupported).
//   The metaindex block is implicit: it ends (with its trailer) where the footer starts. The
//   index block's handle is not in the footer but in the metaindex entry "rocksdb.index". The
//   footer checksum is the footer's checksum type over all 53 bytes with the checksum field
//   zeroed (as a block checksum over 52 bytes + the last byte), plus ContextModifier(base,
//   footer offset); with checksum type 0 it is not checked. format_version 7 changes only the
//   rocksdb.compression_name property (see formats/rocksdb/FORMAT.md).
// * The LevelDB family accepts only LevelDB's footer. The RocksDB family accepts both, refuses
//   format_version above 7 and the plain / cuckoo table magics as Unsupported.
// Decoding is strict (magic, varints, handles inside the file before the footer) and reports
// errors at absolute file offsets, worded per family as each reader always has.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blocktable/block_handle.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

inline constexpr std::uint64_t kLevelDbTableMagic = 0xdb4775248b80fb57ull;
inline constexpr std::uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
inline constexpr std::uint64_t kPlainTableMagic = 0x8242229663bf9564ull;
// RocksDB's plain tables of format_version 0 (its kLegacyPlainTableMagicNumber).
inline constexpr std::uint64_t kPlainTableFormatVersion0Magic = 0x4f3418eb7a8f13b8ull;
inline constexpr std::uint64_t kCuckooTableMagic = 0x926789d0c5f17873ull;
inline constexpr std::size_t kLevelDbFooterSize = 48;
inline constexpr std::size_t kVersionedFooterSize = 53;
inline constexpr std::uint32_t kMaxFormatVersion = 7;  // RocksDB 10.5 reads 0..7
// The first format_version with context checksums and the index handle in the metaindex.
inline constexpr std::uint32_t kContextChecksumFormatVersion = 6;
// Bytes 1..4 of a format_version >= 6 footer (RocksDB's kExtendedMagic).
inline constexpr std::uint8_t kExtendedMagic[4] = {0x3e, 0x00, 0x7a, 0x00};
// The metaindex entry that names the index block from format_version 6 on.
inline constexpr std::string_view kIndexMetaBlockName = "rocksdb.index";

// What a footer says. The defaults are the footer LevelDB writes.
struct Footer {
  std::uint64_t magic = kLevelDbTableMagic;
  std::uint32_t format_version = 0;
  ChecksumType checksum = ChecksumType::kCrc32c;
  BlockHandle metaindex_handle;
  BlockHandle index_handle;  // format_version >= 6: {0, 0}, the metaindex names the index
  // format_version >= 6: the base of the context checksums (never 0) and the stored footer
  // checksum; 0 before.
  std::uint32_t base_context_checksum = 0;
  std::uint32_t footer_checksum = 0;
  bool has_leveldb_magic() const { return magic == kLevelDbTableMagic; }
  // format_version >= 6: context checksums, implicit metaindex, index handle in the metaindex.
  bool context_checksums() const {
    return !has_leveldb_magic() && format_version >= kContextChecksumFormatVersion;
  }
  std::size_t size() const {
    return has_leveldb_magic() ? kLevelDbFooterSize : kVersionedFooterSize;
  }
};

// The magic in the last 8 bytes (0 if the file is shorter).
std::uint64_t TrailingMagic(ByteSpan file);
// True when the file ends in LevelDB's magic and is long enough for its footer.
bool HasLevelDbTableMagic(ByteSpan file);
// True when the file ends in the block-based magic of format_version >= 1 (not LevelDB's).
bool HasBlockBasedTableMagic(ByteSpan file);

// Decodes the footer at the end of `file` under the family's rules; both handles must point
// inside the file before the footer.
Result<Footer> DecodeFooter(ByteSpan file, std::string_view source, TableFamily family);
// Appends the footer's bytes (48 for LevelDB's magic, else 53). format_version >= 6: the
// footer's offset in the file is out_offset + out.size() (`out` may be a file's tail that starts
// at out_offset), the metaindex must end right before it, and its checksum is computed
// (footer.footer_checksum is ignored).
void AppendFooter(const Footer& footer, ByteVector& out, std::uint64_t out_offset = 0);

// How the table's block trailers are read.
TrailerFormat TrailerFormatOf(const Footer& footer, TableFamily family);

}  // namespace bloomcodec::blocktable
