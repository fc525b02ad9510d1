#include "blocktable/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>

namespace bloomcodec::blocktable {

std::uint32_t Crc32cExtend(std::uint32_t crc, ByteSpan data) {
  // ISA-L's crc32_iscsi neither inverts its input CRC nor its result (the register convention),
  // so the standard pre- and post-inversion happen here. Its length is an int: feed large spans
  // in chunks.
  std::uint32_t reg = ~crc;
  while (!data.empty()) {
    std::size_t chunk = std::min<std::size_t>(data.size(), std::size_t{1} << 30);
    reg = crc32_iscsi(const_cast<unsigned char*>(data.data()), static_cast<int>(chunk), reg);
    data = data.subspan(chunk);
  }
  return ~reg;
}

std::uint32_t Crc32c(ByteSpan data) { return Crc32cExtend(0, data); }

std::uint32_t BlockTrailerCrc(ByteSpan contents, std::uint8_t type) {
  return MaskCrc(Crc32cExtend(Crc32c(contents), ByteSpan(&type, 1)));
}

}  // namespace bloomcodec::blocktable
