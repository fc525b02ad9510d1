// Block trailers of block-based tables: the compression type byte and the checksum after every
// block, and the decompression each type byte calls for.
//
//   using namespace bloomcodec::blocktable;
//   TrailerFormat format = TrailerFormatOf(footer, TableFamily::kRocksDb);
//   BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(file, handle, "000012.sst", format, "data block"));
//   // ReadBlock (block.h) does both: checksum when asked, then CompressionOf + Decompress.
//
// Compatibility contract:
// * Layout (both families): after the block's bytes, one type byte, then an LE u32 checksum of
//   the block bytes followed by the type byte.
// * Checksums (RocksDB 7.8's table/format.cc, util/hash.h): 1 masked CRC-32C (LevelDB's only
//   kind), 2 XXH32 (seed 0), 3 low 32 bits of XXH64 (seed 0), 4 low 32 bits of the released
//   XXH3_64bits of the block bytes alone, XOR type * 0x6b9083d9; 0 none.
// * Compression, LevelDB family: 0 none, 1 Snappy, and Mojang's LevelDB fork's (Minecraft
//   Bedrock; its zlib_compressor.h): 2 a zlib stream with its header (ZlibCompressor) and 4 raw
//   deflate (ZlibCompressorRaw), neither with a size prefix; any other byte is Corrupt. Google's
//   LevelDB fails types 2 and 4 as corruption, so a table that uses them is Mojang's.
// * Compression, RocksDB family (util/compression.h): 0 none, 1 Snappy, 2 zlib (raw deflate,
//   window bits -14), 4 LZ4, 5 LZ4HC, 7 and 0x40 Zstandard; with format_version >= 2 every one
//   but Snappy starts with a varint32 uncompressed size; with format_version 0 and 1, zlib has no
//   size and LZ4 an 8-byte one (the low 4 bytes, LE). bzip2 (3) and Xpress (6) are refused as
//   Unsupported.
// Every uncompressed size is bounded, before allocating, by the caller's limit and by what the
// compressed bytes can expand to. Each family keeps its own wording of errors (the command
// line's messages are a contract); every error names the file and an absolute offset (for a
// compressed block, the block's offset).
//
// * Context checksums (RocksDB format_version >= 6; table/format.h ChecksumModifierForContext):
//   the stored value is the checksum above plus (mod 2^32) base ^ (low32(offset) +
//   high32(offset)), base being the footer's base_context_checksum and offset the block's
//   offset in the file; base 0 means no modifier.
//
// * Compression dictionaries (RocksDB's rocksdb.compression_dict meta block, data blocks only):
//   zstd decompresses with it as a dictionary (ZSTD_decompress_usingDict: a trained dictionary
//   or raw content), LZ4 / LZ4HC with it as the history before the block
//   (LZ4_decompress_safe_usingDict), zlib with inflateSetDictionary; Snappy has none.
//
// This is the one place for trailer rules.
#pragma once

#include <cstdint>
#include <string_view>

#include "blocktable/block_handle.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

// Blocks larger than this are refused before allocating (LevelDB's and RocksDB's own blocks are
// a few KiB; a whole-table block of 1 GiB is already absurd).
inline constexpr std::uint64_t kMaxUncompressedBlockSize = std::uint64_t{1} << 30;
// ModifyChecksumForLastByte's multiplier (the XXH3 trailer tweak of RocksDB's util/hash.h).
inline constexpr std::uint32_t kXxh3TypeByteMultiplier = 0x6b9083d9u;

// Which table family's trailer rules apply: the type bytes it knows and how errors are worded.
enum class TableFamily : std::uint8_t {
  kLevelDb,  // LevelDB 1.x: Snappy or nothing, masked CRC-32C
  kRocksDb,  // RocksDB's block-based table: the footer names the checksum and format_version
};

// The trailer's checksum kind (RocksDB's ChecksumType; LevelDB always uses kCrc32c).
enum class ChecksumType : std::uint8_t {
  kNone = 0,
  kCrc32c = 1,
  kXxHash = 2,
  kXxHash64 = 3,
  kXxh3 = 4,
};
std::string_view ChecksumTypeName(ChecksumType type);

// A block's compression. The values are RocksDB's type bytes (rocksdb::CompressionType), of which
// LevelDB writes kNone and kSnappy. A family whose type bytes mean something else maps them in
// CompressionOf, onto values of their own beyond these.
enum class BlockCompression : std::uint8_t {
  kNone = 0,
  kSnappy = 1,
  kZlib = 2,
  kBZip2 = 3,
  kLz4 = 4,
  kLz4hc = 5,
  kXpress = 6,
  kZstd = 7,
  kZstdNotFinal = 0x40,
  // Mojang's LevelDB: type byte 2 (zlib with header) and 4 (raw deflate). Values of their own so
  // that they never mix with RocksDB's 2 (raw deflate, size-prefixed) and 4 (LZ4).
  kMojangZlib = 0x82,
  kMojangRawDeflate = 0x84,
};
// RocksDB's names (CompressionTypeToString): "NoCompression", "Snappy", "Zlib", "LZ4", ...;
// "unknown" for any other value.
std::string_view CompressionName(BlockCompression type);

// The byte a trailer stores for `type` (kMojangZlib 2, kMojangRawDeflate 4, else the value).
std::uint8_t TypeByte(BlockCompression type);

// How one table's trailers are read.
struct TrailerFormat {
  TableFamily family = TableFamily::kLevelDb;
  ChecksumType checksum = ChecksumType::kCrc32c;  // the footer's (LevelDB: always CRC-32C)
  std::uint32_t format_version = 0;               // RocksDB: decides the size prefixes
  std::uint32_t base_context_checksum = 0;        // RocksDB format_version >= 6; 0: none
};

// What a context checksum adds to the plain one for a block at `offset` (0 when base is 0).
std::uint32_t ContextModifier(std::uint32_t base_context_checksum, std::uint64_t offset);

// The value a trailer stores for `block` followed by `type`.
std::uint32_t BlockChecksum(ChecksumType checksum, ByteSpan block, std::uint8_t type);
// The value the trailer of a block written at `offset` stores (the context modifier added).
std::uint32_t StoredBlockChecksum(const TrailerFormat& format, ByteSpan block, std::uint8_t type,
                                  std::uint64_t offset);

// Checks the trailer's checksum of the block `handle` names (bounds first; none to check with
// ChecksumType::kNone).
Status VerifyTrailer(ByteSpan file, const BlockHandle& handle, std::string_view source,
                     const TrailerFormat& format, std::string_view what);

// The compression a trailer's type byte (read at `trailer_at`) names under the family's rules.
Result<BlockCompression> CompressionOf(const TrailerFormat& format, std::uint8_t type,
                                       std::string_view source, std::uint64_t trailer_at,
                                       std::string_view what);

// The uncompressed bytes of the block at `block_offset` stored as `data` with `type` (not kNone).
Result<ByteVector> Decompress(const TrailerFormat& format, BlockCompression type, ByteSpan data,
                              std::string_view source, std::uint64_t block_offset,
                              std::string_view what, std::uint64_t max_uncompressed_size,
                              ByteSpan dictionary = {});

// `raw` compressed as RocksDB's CompressBlock does for `type` with its default options (Snappy,
// zlib, LZ4, LZ4HC, ZSTD; format_version >= 2 framing), or
// for kMojangZlib / kMojangRawDeflate as Mojang's LevelDB does (a bare stream, default level).
// Returns false when the library declines (the caller then stores the block uncompressed).
bool CompressBlock(BlockCompression type, ByteSpan raw, ByteVector& out);

}  // namespace bloomcodec::blocktable
