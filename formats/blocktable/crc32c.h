// CRC-32C (Castagnoli) and the masking LevelDB applies before storing a CRC in a block trailer;
// RocksDB stores the same masked CRC for its checksum type 1 (kCRC32c).
//
//   using namespace bloomcodec::blocktable;
//   std::uint32_t stored = MaskCrc(Crc32cExtend(Crc32c(block), type_byte));
//   bool intact = UnmaskCrc(stored) == Crc32cExtend(Crc32c(block), type_byte);
//
// Compatibility contract: Crc32c equals leveldb::crc32c::Value (init and final xor 0xFFFFFFFF,
// reflected polynomial 0x82F63B78; "123456789" -> 0xE3069283), and MaskCrc/UnmaskCrc equal
// leveldb::crc32c::Mask/Unmask. Computed with ISA-L's crc32_iscsi.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::blocktable {

std::uint32_t Crc32c(ByteSpan data);
// The CRC of (bytes whose CRC is `crc`) followed by `data`.
std::uint32_t Crc32cExtend(std::uint32_t crc, ByteSpan data);

// LevelDB stores CRCs rotated and offset so that a CRC of data that itself embeds CRCs does not
// degenerate: masked = rotr(crc, 15) + 0xa282ead8.
inline constexpr std::uint32_t kCrcMaskDelta = 0xa282ead8u;
inline constexpr std::uint32_t MaskCrc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kCrcMaskDelta;
}
inline constexpr std::uint32_t UnmaskCrc(std::uint32_t masked) {
  std::uint32_t rot = masked - kCrcMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// The masked CRC a block trailer stores: CRC-32C over the block bytes then the type byte.
std::uint32_t BlockTrailerCrc(ByteSpan contents, std::uint8_t type);

}  // namespace bloomcodec::blocktable
