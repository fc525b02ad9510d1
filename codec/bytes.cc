#include "bloomcodec/bytes.h"

#include <algorithm>
#include <array>

namespace bloomcodec {

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr std::array<int, 256> MakeBase64Table() {
  std::array<int, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kBase64Alphabet[i])] = i;
  return t;
}
constexpr std::array<int, 256> kBase64Values = MakeBase64Table();
}  // namespace

std::string ToHex(ByteSpan bytes) {
  std::string s(bytes.size() * 2, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    s[2 * i] = kHexDigits[bytes[i] >> 4];
    s[2 * i + 1] = kHexDigits[bytes[i] & 15];
  }
  return s;
}

bool FromHex(std::string_view hex, ByteVector& out) {
  if (hex.size() % 2 != 0) return false;
  // Grown geometrically, never to the exact size: callers append many keys to one buffer (a
  // streamed chunk), and an exact reserve per key would copy the whole buffer each time.
  if (out.capacity() < out.size() + hex.size() / 2) {
    out.reserve(std::max(out.size() + hex.size() / 2, 2 * out.capacity()));
  }
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  return true;
}

std::string ToBase64(ByteSpan bytes) {
  std::string s;
  s.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v =
        std::uint32_t{bytes[i]} << 16 | std::uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    s += kBase64Alphabet[v >> 18];
    s += kBase64Alphabet[(v >> 12) & 63];
    s += kBase64Alphabet[(v >> 6) & 63];
    s += kBase64Alphabet[v & 63];
  }
  if (std::size_t left = bytes.size() - i; left > 0) {
    std::uint32_t v =
        std::uint32_t{bytes[i]} << 16 | (left == 2 ? std::uint32_t{bytes[i + 1]} << 8 : 0);
    s += kBase64Alphabet[v >> 18];
    s += kBase64Alphabet[(v >> 12) & 63];
    s += left == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    s += '=';
  }
  return s;
}

bool FromBase64(std::string_view text, ByteVector& out) {
  if (text.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    std::uint32_t v = 0;
    for (int j = 0; j < 4; ++j) {
      int d = 0;
      if (j < 4 - pad) {
        d = kBase64Values[static_cast<unsigned char>(text[i + j])];
        if (d < 0) return false;
      }
      v = v << 6 | static_cast<std::uint32_t>(d);
    }
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(v >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(v));
  }
  return true;
}

}  // namespace bloomcodec
