#include "codec/byte_reader.h"

#include <boost/endian/conversion.hpp>

namespace bloomcodec {

namespace be = boost::endian;

Status ByteReader::Error(std::string expected, std::string found) const {
  return Status::Corrupt(source_, offset(), std::move(expected), std::move(found));
}

Status ByteReader::ErrorAt(std::uint64_t absolute_offset, std::string expected,
                           std::string found) const {
  return Status::Corrupt(source_, absolute_offset, std::move(expected), std::move(found));
}

Status ByteReader::Short(std::uint64_t need, std::string_view what) const {
  return Error(std::string(what) + " (" + std::to_string(need) + " bytes)",
               "only " + std::to_string(remaining()) + " bytes before the end");
}

Result<std::uint8_t> ByteReader::ReadU8(std::string_view what) {
  if (remaining() < 1) return Short(1, what);
  return data_[pos_++];
}

#define BLOOMCODEC_FIXED_READ(Name, Type, Loader)                     \
  Result<Type> ByteReader::Name(std::string_view what) {              \
    if (remaining() < sizeof(Type)) return Short(sizeof(Type), what); \
    Type v = static_cast<Type>(Loader(data_.data() + pos_));          \
    pos_ += sizeof(Type);                                             \
    return v;                                                         \
  }

BLOOMCODEC_FIXED_READ(ReadBigU16, std::uint16_t, be::load_big_u16)
BLOOMCODEC_FIXED_READ(ReadBigU32, std::uint32_t, be::load_big_u32)
BLOOMCODEC_FIXED_READ(ReadBigI32, std::int32_t, be::load_big_s32)
BLOOMCODEC_FIXED_READ(ReadBigU64, std::uint64_t, be::load_big_u64)
BLOOMCODEC_FIXED_READ(ReadBigI64, std::int64_t, be::load_big_s64)
BLOOMCODEC_FIXED_READ(ReadLittleU32, std::uint32_t, be::load_little_u32)
BLOOMCODEC_FIXED_READ(ReadLittleU64, std::uint64_t, be::load_little_u64)
#undef BLOOMCODEC_FIXED_READ

Result<std::uint64_t> ByteReader::ReadVarint64(std::string_view what) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    if (pos_ + i >= data_.size()) {
      return Error(std::string(what) + " (varint)", "the end of the data inside the varint");
    }
    std::uint8_t b = data_[pos_ + i];
    if (i == 9 && b > 1)
      return Error(std::string(what) + " (varint of at most 64 bits)", "more bits");
    value |= std::uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) {
      pos_ += i + 1;
      return value;
    }
  }
  return Error(std::string(what) + " (varint of at most 10 bytes)", "a longer varint");
}

Result<std::uint32_t> ByteReader::ReadVarint32(std::string_view what) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    if (pos_ + i >= data_.size()) {
      return Error(std::string(what) + " (varint)", "the end of the data inside the varint");
    }
    std::uint8_t b = data_[pos_ + i];
    if (i == 4 && b > 0x0f)
      return Error(std::string(what) + " (varint of at most 32 bits)", "more bits");
    value |= std::uint32_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) {
      pos_ += i + 1;
      return value;
    }
  }
  return Error(std::string(what) + " (varint of at most 5 bytes)", "a longer varint");
}

Result<ByteSpan> ByteReader::ReadBytes(std::uint64_t n, std::string_view what) {
  if (remaining() < n) return Short(n, what);
  ByteSpan s = data_.subspan(pos_, static_cast<std::size_t>(n));
  pos_ += static_cast<std::size_t>(n);
  return s;
}

Status ByteReader::Expect(ByteSpan literal, std::string_view what) {
  if (remaining() < literal.size()) return Short(literal.size(), what);
  for (std::size_t i = 0; i < literal.size(); ++i) {
    if (data_[pos_ + i] != literal[i]) {
      return ErrorAt(offset() + i, std::string(what) + " (bytes " + ToHex(literal) + ")",
                     ToHex(data_.subspan(pos_, literal.size())));
    }
  }
  pos_ += literal.size();
  return Status();
}

Status ByteReader::Skip(std::uint64_t n, std::string_view what) {
  if (remaining() < n) return Short(n, what);
  pos_ += static_cast<std::size_t>(n);
  return Status();
}

Status ByteReader::Seek(std::size_t position, std::string_view what) {
  if (position > data_.size()) {
    return Error(std::string(what) + " within " + std::to_string(data_.size()) + " bytes",
                 "position " + std::to_string(position));
  }
  pos_ = position;
  return Status();
}

}  // namespace bloomcodec
