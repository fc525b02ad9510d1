// Byte spans: the currency of every decoder and encoder.
//
//   bloomcodec::ByteSpan key = bloomcodec::AsBytes("user:42");
//
// Keys and file contents are arbitrary bytes; std::span<const uint8_t> keeps them unsigned, so
// no code in this library can sign-extend a byte by accident. Where a format's original did sign
// extension (Java's byte, x86 char), the code doing it says so explicitly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcodec {

using ByteSpan = std::span<const std::uint8_t>;
using MutableByteSpan = std::span<std::uint8_t>;
using ByteVector = std::vector<std::uint8_t>;

inline ByteSpan AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
inline std::string_view AsChars(ByteSpan b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::string ToHex(ByteSpan bytes);
// Parses hex digits (either case, even count). Returns false on anything else.
bool FromHex(std::string_view hex, ByteVector& out);
std::string ToBase64(ByteSpan bytes);
bool FromBase64(std::string_view text, ByteVector& out);

}  // namespace bloomcodec
