#include "bloomcodec/leveldb/footer.h"

#include <algorithm>
#include <string>

#include "bloomcodec/byte_writer.h"

namespace bloomcodec::leveldb {

void AppendBlockHandle(const BlockHandle& handle, ByteVector& out) {
  ByteWriter w(out);
  w.PutVarint64(handle.offset);
  w.PutVarint64(handle.size);
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

bool HasTableMagic(ByteSpan file) {
  if (file.size() < kFooterSize) return false;
  std::uint64_t magic = 0;
  for (int i = 7; i >= 0; --i) magic = (magic << 8) | file[file.size() - 8 + i];
  return magic == kTableMagic;
}

Result<Footer> DecodeFooter(ByteSpan file, std::string_view source) {
  if (file.size() < kFooterSize) {
    return Status::Corrupt(std::string(source), 0, "a table of at least 48 bytes (the footer)",
                           std::to_string(file.size()) + " bytes");
  }
  const std::uint64_t footer_at = file.size() - kFooterSize;
  ByteReader reader(file.subspan(footer_at), source, footer_at);
  BLOOMCODEC_RETURN_IF_ERROR(reader.Skip(40, "footer handles"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t magic, reader.ReadLittleU64("table magic"));
  if (magic != kTableMagic) {
    return Status::Corrupt(std::string(source), footer_at + 40,
                           "LevelDB table magic 57 fb 80 8b 24 75 47 db",
                           ToHex(file.subspan(footer_at + 40)));
  }
  // The handles are decoded from the footer's start; LevelDB ignores the padding after them.
  ByteReader handles(file.subspan(footer_at, 40), source, footer_at);
  Footer footer;
  BLOOMCODEC_ASSIGN_OR_RETURN(footer.metaindex_handle,
                              ReadBlockHandle(handles, "metaindex block handle"));
  const std::uint64_t index_at = handles.offset();
  BLOOMCODEC_ASSIGN_OR_RETURN(footer.index_handle, ReadBlockHandle(handles, "index block handle"));
  BLOOMCODEC_RETURN_IF_ERROR(CheckHandleInFile(footer.metaindex_handle, footer_at, source,
                                               footer_at, "metaindex block"));
  BLOOMCODEC_RETURN_IF_ERROR(
      CheckHandleInFile(footer.index_handle, footer_at, source, index_at, "index block"));
  return footer;
}

void AppendFooter(const Footer& footer, ByteVector& out) {
  const std::size_t start = out.size();
  AppendBlockHandle(footer.metaindex_handle, out);
  AppendBlockHandle(footer.index_handle, out);
  out.resize(start + 2 * kMaxEncodedHandleSize, 0);
  ByteWriter(out).PutLittleU64(kTableMagic);
}

}  // namespace bloomcodec::leveldb
