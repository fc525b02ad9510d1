#include "blocktable/block_handle.h"

#include <algorithm>
#include <string>

#include "codec/byte_writer.h"

namespace bloomcodec::blocktable {

void AppendBlockHandle(const BlockHandle& handle, ByteVector& out) {
  ByteWriter w(out);
  w.PutVarint64(handle.offset);
  w.PutVarint64(handle.size);
}

ByteVector BlockHandleBytes(const BlockHandle& handle) {
  ByteVector out;
  AppendBlockHandle(handle, out);
  return out;
}

Result<BlockHandle> ReadBlockHandle(ByteReader& reader, std::string_view what) {
  // Every table lookup decodes an index entry's handle: the field descriptions below are built
  // only when a read fails (re-read from the same position), so a lookup allocates nothing.
  const std::size_t start = reader.position();
  {
    Result<std::uint64_t> offset = reader.ReadVarint64("varint64");
    if (offset.ok()) {
      Result<std::uint64_t> size = reader.ReadVarint64("varint64");
      if (size.ok()) return BlockHandle{*offset, *size};
    }
  }
  BLOOMCODEC_RETURN_IF_ERROR(reader.Seek(start, "block handle"));
  BlockHandle handle;
  BLOOMCODEC_ASSIGN_OR_RETURN(handle.offset,
                              reader.ReadVarint64(std::string(what) + " offset (varint64)"));
  BLOOMCODEC_ASSIGN_OR_RETURN(handle.size,
                              reader.ReadVarint64(std::string(what) + " size (varint64)"));
  return handle;
}

Status CheckHandleInFile(const BlockHandle& handle, std::uint64_t file_size,
                         std::string_view source, std::uint64_t at, std::string_view what) {
  // Written to avoid overflow: a crafted handle may hold values near 2^64.
  if (handle.offset > file_size || handle.size > file_size - handle.offset ||
      kBlockTrailerSize > file_size - handle.offset - handle.size) {
    return Status::Corrupt(std::string(source), at,
                           std::string(what) + " inside the file (" + std::to_string(file_size) +
                               " bytes, block + 5-byte trailer)",
                           "offset " + std::to_string(handle.offset) + ", size " +
                               std::to_string(handle.size));
  }
  return Status();
}

Status CheckHandleInFile(const BlockHandle& handle, std::uint64_t file_size,
                         std::string_view source, std::string_view what) {
  return CheckHandleInFile(handle, file_size, source, std::min(handle.offset, file_size), what);
}

}  // namespace bloomcodec::blocktable
