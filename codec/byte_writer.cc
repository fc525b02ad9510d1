#include "codec/byte_writer.h"

#include <boost/endian/conversion.hpp>

namespace bloomcodec {

namespace be = boost::endian;

namespace {
template <std::size_t N, typename Store, typename T>
void Append(ByteVector& out, Store store, T v) {
  std::size_t at = out.size();
  out.resize(at + N);
  store(out.data() + at, v);
}
}  // namespace

void ByteWriter::PutBigU16(std::uint16_t v) { Append<2>(out_, be::store_big_u16, v); }
void ByteWriter::PutBigU32(std::uint32_t v) { Append<4>(out_, be::store_big_u32, v); }
void ByteWriter::PutBigU64(std::uint64_t v) { Append<8>(out_, be::store_big_u64, v); }
void ByteWriter::PutLittleU32(std::uint32_t v) { Append<4>(out_, be::store_little_u32, v); }
void ByteWriter::PutLittleU64(std::uint64_t v) { Append<8>(out_, be::store_little_u64, v); }

void ByteWriter::PutVarint64(std::uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<std::uint8_t>(v));
}

void ByteWriter::PatchLittleU32(std::size_t position, std::uint32_t v) {
  be::store_little_u32(out_.data() + position, v);
}
void ByteWriter::PatchBigU32(std::size_t position, std::uint32_t v) {
  be::store_big_u32(out_.data() + position, v);
}

}  // namespace bloomcodec
