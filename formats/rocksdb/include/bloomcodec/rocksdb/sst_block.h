// The fixed parts of a RocksDB block-based table (SST) file: the footer of every format_version,
// block trailers with their five checksum types, and block decompression.
//
//   using namespace bloomcodec::rocksdb;
//   BLOOMCODEC_ASSIGN_OR_RETURN(SstFooter footer, DecodeSstFooter(file, "000012.sst"));
//   SstBlockOptions options = BlockOptionsFor(footer);
//   options.verify_checksum = true;
//   BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::BlockContents index,
//                               ReadSstBlock(file, footer.index_handle, "000012.sst", options));
//
// Compatibility contract (RocksDB 7.8's table/format.cc, table/block_fetcher.cc,
// util/compression.h):
// * Footer: a file ending in the legacy magic 0xdb4775248b80fb57 (LevelDB's, which RocksDB calls
//   kLegacyBlockBasedTableMagicNumber) has the 48-byte footer, format_version 0 and CRC-32C. One
//   ending in 0x88e241b785f4cff7 has the 53-byte footer: checksum type byte, both handles, zero
//   padding to byte 41, LE u32 format_version, LE u64 magic. format_version above 5 (6 came after
//   7.8) and the plain / cuckoo table magics are refused as Unsupported.
// * Trailer: compression type byte, LE u32 checksum of the block bytes followed by the type byte:
//   1 masked CRC-32C, 2 XXH32 (seed 0), 3 low 32 bits of XXH64 (seed 0), 4 low 32 bits of the
//   released XXH3_64bits of the block bytes alone, XOR type * 0x6b9083d9; 0 no checksum.
// * Compression: 0 none, 1 Snappy, 2 zlib (raw deflate, window bits -14), 4 LZ4, 5 LZ4HC, 7 and
//   0x40 Zstandard; with format_version >= 2 every one but Snappy starts with a varint32
//   uncompressed size; with format_version 0 and 1, zlib has no size and LZ4 an 8-byte one (the
//   low 4 bytes, LE). bzip2 (3) and Xpress (6) are refused as Unsupported. Every uncompressed size
//   is bounded, before allocating, by what the compressed bytes can expand to.
// Every error names the file and the absolute offset (for a compressed block, its offset).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/leveldb/block.h"
#include "bloomcodec/leveldb/footer.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

using leveldb::BlockCompression;
using leveldb::BlockHandle;

inline constexpr std::uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
inline constexpr std::uint64_t kLegacyBlockBasedTableMagic = leveldb::kTableMagic;
inline constexpr std::uint64_t kPlainTableMagic = 0x8242229663bf9564ull;
inline constexpr std::uint64_t kLegacyPlainTableMagic = 0x4f3418eb7a8f13b8ull;
inline constexpr std::uint64_t kCuckooTableMagic = 0x926789d0c5f17873ull;
inline constexpr std::size_t kLegacyFooterSize = 48;
inline constexpr std::size_t kFooterSize = 53;
inline constexpr std::uint32_t kMaxFormatVersion = 5;  // RocksDB 7.8 reads 0..5
// ModifyChecksumForLastByte's multiplier (util/hash.h kRandomPrime... the XXH3 trailer tweak).
inline constexpr std::uint32_t kXxh3TypeByteMultiplier = 0x6b9083d9u;

enum class ChecksumType : std::uint8_t {
  kNone = 0,
  kCrc32c = 1,
  kXxHash = 2,
  kXxHash64 = 3,
  kXxh3 = 4,
};
std::string_view ChecksumTypeName(ChecksumType type);
// RocksDB's names (CompressionTypeToString): "NoCompression", "Snappy", "Zlib", "LZ4", ...
std::string_view CompressionName(BlockCompression type);

struct SstFooter {
  std::uint64_t magic = kBlockBasedTableMagic;
  std::uint32_t format_version = 5;
  ChecksumType checksum = ChecksumType::kXxh3;
  BlockHandle metaindex_handle;
  BlockHandle index_handle;
  bool legacy() const { return magic == kLegacyBlockBasedTableMagic; }
  std::size_t size() const { return legacy() ? kLegacyFooterSize : kFooterSize; }
};

// True when the file ends in the block-based magic of format_version >= 1 (not LevelDB's).
bool HasSstMagic(ByteSpan file);
// The magic in the last 8 bytes (0 if the file is shorter).
std::uint64_t TrailingMagic(ByteSpan file);
Result<SstFooter> DecodeSstFooter(ByteSpan file, std::string_view source);
void AppendSstFooter(const SstFooter& footer, ByteVector& out);

// The value a trailer stores for `block` followed by `type`.
std::uint32_t BlockChecksum(ChecksumType checksum, ByteSpan block, std::uint8_t type);

struct SstBlockOptions {
  ChecksumType checksum = ChecksumType::kCrc32c;
  std::uint32_t format_version = 5;
  bool verify_checksum = false;
  std::uint64_t max_uncompressed_size = leveldb::kMaxUncompressedBlockSize;
};
SstBlockOptions BlockOptionsFor(const SstFooter& footer);

// Checks only the trailer's checksum of the block `handle` names (bounds first).
Status VerifyBlockChecksum(ByteSpan file, const BlockHandle& handle, std::string_view source,
                           ChecksumType checksum, std::string_view what);

// Reads the block `handle` names: bounds, checksum if asked, decompression.
Result<leveldb::BlockContents> ReadSstBlock(ByteSpan file, const BlockHandle& handle,
                                            std::string_view source,
                                            const SstBlockOptions& options,
                                            std::string_view what = "block");

// `raw` compressed as RocksDB's CompressBlock does for `type` (format_version >= 2 framing).
// Returns false when the library declines (the caller then stores the block uncompressed).
bool CompressBlock(BlockCompression type, ByteSpan raw, ByteVector& out);

}  // namespace bloomcodec::rocksdb
