// What DataOutput.writeUTF writes for a String (without its 2-byte length), written here from
// its specification for tests and fuzzers: the library only reads this encoding (readUTF's way),
// so the writer that makes test data stays apart from the reader it tests. Header-only, so that
// fuzz targets can use it without the test support library.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomcodec/bytes.h"

namespace bloomcodec::testing {

// Modified UTF-8 of UTF-16 code units: 1 byte for U+0001 .. U+007F, 2 bytes for U+0000 and up
// to U+07FF, 3 bytes for the rest (each surrogate on its own, paired or not).
inline ByteVector ModifiedUtf8(std::u16string_view s) {
  ByteVector out;
  for (char16_t u : s) {
    if (u >= 1 && u <= 0x7f) {
      out.push_back(static_cast<std::uint8_t>(u));
    } else if (u <= 0x7ff) {
      out.push_back(static_cast<std::uint8_t>(0xc0 | u >> 6));
      out.push_back(static_cast<std::uint8_t>(0x80 | (u & 0x3f)));
    } else {
      out.push_back(static_cast<std::uint8_t>(0xe0 | u >> 12));
      out.push_back(static_cast<std::uint8_t>(0x80 | (u >> 6 & 0x3f)));
      out.push_back(static_cast<std::uint8_t>(0x80 | (u & 0x3f)));
    }
  }
  return out;
}

}  // namespace bloomcodec::testing
