// The fixed parts of a LevelDB table file: block handles, block trailers and the 48-byte footer.
//
//   using namespace bloomcodec::leveldb;
//   BLOOMCODEC_ASSIGN_OR_RETURN(Footer footer, DecodeFooter(file_bytes, "000005.ldb"));
//   // footer.index_handle -> the index block, footer.metaindex_handle -> the metaindex block
//
// Compatibility contract: the encodings of LevelDB's table/format.{h,cc} (1.x, unchanged since
// 1.0): a BlockHandle is varint64 offset + varint64 size (size excludes the 5-byte trailer); the
// footer is both handles, zero padding to byte 40, then the little-endian magic
// 0xdb4775248b80fb57. Decoding is strict where LevelDB is (magic, varints, handles inside the
// file) and reports errors at absolute file offsets.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomcodec/byte_reader.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::leveldb {

inline constexpr std::uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr std::size_t kFooterSize = 48;
inline constexpr std::size_t kBlockTrailerSize = 5;  // type byte + LE u32 masked CRC
inline constexpr std::size_t kMaxEncodedHandleSize = 20;  // two varint64s

// The trailer's type byte. LevelDB writes only kNone and kSnappy; the others are RocksDB's
// (rocksdb::CompressionType), listed here so that one BlockContents type serves both readers.
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
};

struct BlockHandle {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;  // without the trailer
  friend bool operator==(const BlockHandle&, const BlockHandle&) = default;
};

void AppendBlockHandle(const BlockHandle& handle, ByteVector& out);
// Reads a handle at the reader's position (varint64 offset, varint64 size).
Result<BlockHandle> ReadBlockHandle(ByteReader& reader, std::string_view what);
// Checks that the block and its trailer lie inside a file of `file_size` bytes; `at` is where
// the handle itself was read (for the message).
Status CheckHandleInFile(const BlockHandle& handle, std::uint64_t file_size,
                         std::string_view source, std::uint64_t at, std::string_view what);
// The same for a handle whose position is no longer known (its reader checked it there): the
// message names the handle's own offset, or the end of the file when that lies past it, so that
// an error offset is always one inside the file.
Status CheckHandleInFile(const BlockHandle& handle, std::uint64_t file_size,
                         std::string_view source, std::string_view what);

struct Footer {
  BlockHandle metaindex_handle;
  BlockHandle index_handle;
};

// True when the file ends in LevelDB's table magic (and is long enough for a footer).
bool HasTableMagic(ByteSpan file);
// Decodes the last 48 bytes of `file`; both handles must point inside the file.
Result<Footer> DecodeFooter(ByteSpan file, std::string_view source);
// Appends the 48 footer bytes.
void AppendFooter(const Footer& footer, ByteVector& out);

}  // namespace bloomcodec::leveldb
