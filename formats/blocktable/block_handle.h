// Block handles: where a block of a block-based table (LevelDB table, RocksDB SST) lies.
//
//   using namespace bloomcodec::blocktable;
//   ByteReader reader(index_value, "000005.ldb", value_offset);
//   BLOOMCODEC_ASSIGN_OR_RETURN(BlockHandle h, ReadBlockHandle(reader, "data block handle"));
//   BLOOMCODEC_RETURN_IF_ERROR(CheckHandleInFile(h, file.size(), "000005.ldb", "data block"));
//
// Compatibility contract: LevelDB's table/format.{h,cc} BlockHandle, which RocksDB kept
// (table/format.h): varint64 offset, varint64 size; the size excludes the 5-byte block trailer
// (type byte + LE u32 checksum) that follows every block in both formats. Offsets in error
// messages are absolute file offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "codec/byte_reader.h"

namespace bloomcodec::blocktable {

inline constexpr std::size_t kBlockTrailerSize = 5;       // type byte + LE u32 checksum
inline constexpr std::size_t kMaxEncodedHandleSize = 20;  // two varint64s

struct BlockHandle {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;  // without the trailer
  friend bool operator==(const BlockHandle&, const BlockHandle&) = default;
};

void AppendBlockHandle(const BlockHandle& handle, ByteVector& out);
// A handle alone, encoded (the value of a metaindex or index entry).
ByteVector BlockHandleBytes(const BlockHandle& handle);
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

}  // namespace bloomcodec::blocktable
