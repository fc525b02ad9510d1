#include "bloomcodec/cassandra/java_string.h"

#include <string>

namespace bloomcodec::cassandra {
namespace {

std::string Hex2(std::uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string{kDigits[b >> 4], kDigits[b & 15]};
}

Status BadText(std::string_view what, std::string_view encoding, std::size_t at,
               std::string_view why) {
  return Status::InvalidArgument(std::string(what) + " is not valid " + std::string(encoding) +
                                 ": " + std::string(why) + " at byte " + std::to_string(at));
}

bool IsContinuation(std::uint8_t b) { return (b & 0xc0) == 0x80; }

void PutUnit(char16_t unit, ByteVector& out) {
  out.push_back(static_cast<std::uint8_t>(unit >> 8));
  out.push_back(static_cast<std::uint8_t>(unit & 0xff));
}

bool IsHigh(char16_t u) { return u >= 0xd800 && u <= 0xdbff; }
bool IsLow(char16_t u) { return u >= 0xdc00 && u <= 0xdfff; }

}  // namespace

Result<std::u16string> DecodeUtf8Text(ByteSpan text, std::string_view what) {
  std::u16string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::uint8_t b = text[i];
    if (b < 0x80) {
      out.push_back(static_cast<char16_t>(b));
      ++i;
      continue;
    }
    int extra = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      extra = 1, cp = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      extra = 2, cp = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      extra = 3, cp = b & 0x07, min = 0x10000;
    } else {
      return BadText(what, "UTF-8", i, "byte " + Hex2(b) + " cannot start a character");
    }
    if (text.size() - i - 1 < static_cast<std::size_t>(extra)) {
      return BadText(what, "UTF-8", i, "a character cut off by the end of the text");
    }
    for (int j = 1; j <= extra; ++j) {
      const std::uint8_t c = text[i + static_cast<std::size_t>(j)];
      if (!IsContinuation(c)) {
        return BadText(what, "UTF-8", i + static_cast<std::size_t>(j),
                       "byte " + Hex2(c) + " where a continuation byte (80 .. bf) belongs");
      }
      cp = cp << 6 | (c & 0x3f);
    }
    if (cp < min) return BadText(what, "UTF-8", i, "an overlong encoding");
    if (cp >= 0xd800 && cp <= 0xdfff) {
      return BadText(what, "UTF-8", i, "an encoded surrogate (CESU-8 / modified UTF-8)");
    }
    if (cp > 0x10ffff) return BadText(what, "UTF-8", i, "a code point above U+10FFFF");
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xd800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += 1 + static_cast<std::size_t>(extra);
  }
  return out;
}

Result<std::u16string> DecodeModifiedUtf8(ByteSpan encoded, std::string_view what) {
  std::u16string out;
  out.reserve(encoded.size());
  std::size_t i = 0;
  while (i < encoded.size()) {
    const std::uint8_t b = encoded[i];
    switch (b >> 4) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
      case 5:
      case 6:
      case 7:
        out.push_back(static_cast<char16_t>(b));
        i += 1;
        break;
      case 12:
      case 13: {
        if (encoded.size() - i < 2) {
          return BadText(what, "modified UTF-8", i, "a partial character at the end");
        }
        const std::uint8_t c = encoded[i + 1];
        if (!IsContinuation(c)) {
          return BadText(what, "modified UTF-8", i + 1, "byte " + Hex2(c) + " (malformed input)");
        }
        out.push_back(static_cast<char16_t>((b & 0x1f) << 6 | (c & 0x3f)));
        i += 2;
        break;
      }
      case 14: {
        if (encoded.size() - i < 3) {
          return BadText(what, "modified UTF-8", i, "a partial character at the end");
        }
        const std::uint8_t c = encoded[i + 1];
        const std::uint8_t d = encoded[i + 2];
        if (!IsContinuation(c) || !IsContinuation(d)) {
          const std::size_t bad = IsContinuation(c) ? i + 2 : i + 1;
          return BadText(what, "modified UTF-8", bad,
                         "byte " + Hex2(encoded[bad]) + " (malformed input)");
        }
        out.push_back(static_cast<char16_t>((b & 0x0f) << 12 | (c & 0x3f) << 6 | (d & 0x3f)));
        i += 3;
        break;
      }
      default: return BadText(what, "modified UTF-8", i, "byte " + Hex2(b) + " (malformed input)");
    }
  }
  return out;
}

void AppendJavaUtf16Bytes(std::u16string_view s, ByteVector& out) {
  if (s.empty()) return;  // the JDK's encoder writes no byte order mark for no characters
  out.reserve(out.size() + 2 + 2 * s.size());
  out.push_back(0xfe);
  out.push_back(0xff);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char16_t u = s[i];
    if (IsHigh(u) && i + 1 < s.size() && IsLow(s[i + 1])) {
      PutUnit(u, out);
      PutUnit(s[i + 1], out);
      ++i;
    } else if (IsHigh(u) || IsLow(u)) {
      PutUnit(0xfffd, out);  // an unpaired surrogate is malformed input, replaced
    } else {
      PutUnit(u, out);
    }
  }
}

std::optional<std::string> Utf8FromUtf16(std::u16string_view s, bool replace_unpaired) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::uint32_t cp = s[i];
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.size() && s[i + 1] >= 0xdc00 &&
        s[i + 1] <= 0xdfff) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (s[i + 1] - 0xdc00);
      ++i;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      if (!replace_unpaired) return std::nullopt;
      cp = 0xfffd;
    }
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xc0 | cp >> 6));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | cp >> 12));
      out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | cp >> 18));
      out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }
  return out;
}

ByteVector JavaUtf16Bytes(std::u16string_view s) {
  ByteVector out;
  AppendJavaUtf16Bytes(s, out);
  return out;
}

Result<KeyList> JavaStringKeysFromUtf8(const KeyList& utf8_keys, std::string_view source) {
  KeyList out;
  out.Reserve(utf8_keys.size(), utf8_keys.total_bytes() * 2 + utf8_keys.size() * 2);
  ByteVector scratch;
  for (std::size_t i = 0; i < utf8_keys.size(); ++i) {
    const ByteSpan key = utf8_keys[i];
    const std::string what = std::string(source) + ": key " + std::to_string(i + 1) + " (hex " +
                             (key.size() > 64 ? ToHex(key.first(64)) + "..." : ToHex(key)) + ")";
    Result<std::u16string> text = DecodeUtf8Text(key, what);
    if (!text.ok()) {
      return Status::InvalidArgument(text.status().message() +
                                     "; cassandra-0.6 hashes each key as a Java String, so keys "
                                     "must be UTF-8 text");
    }
    scratch.clear();
    AppendJavaUtf16Bytes(*text, scratch);
    out.Add(ByteSpan(scratch));
  }
  return out;
}

}  // namespace bloomcodec::cassandra

namespace bloomcodec::cassandra {

Status Utf8KeysFromIndex(const KeyList& stored, std::string_view source, KeyList& out) {
  std::uint64_t entry = 0;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const ByteSpan key = stored[i];
    Result<std::u16string> text = DecodeModifiedUtf8(key, "key " + std::to_string(i + 1));
    const std::optional<std::string> utf8 =
        text.ok() ? Utf8FromUtf16(*text, /*replace_unpaired=*/false) : std::nullopt;
    if (!utf8) {
      return Status::Corrupt(
          std::string(source), entry + 2,
          "a key as DataOutput.writeUTF writes it that is also UTF-8 text",
          (text.ok() ? std::string("a String with an unpaired surrogate")
                     : text.status().message()) +
              " (hex " + (key.size() > 64 ? ToHex(key.first(64)) + "..." : ToHex(key)) + ")");
    }
    out.Add(std::string_view(*utf8));
    entry += 2 + key.size() + 8;
  }
  return {};
}

Status JavaStringKeysFromIndex(const KeyList& stored, std::string_view source, KeyList& out,
                               std::uint64_t first_offset, std::uint64_t first_number) {
  std::uint64_t entry = first_offset;  // file offset of the entry being converted
  ByteVector scratch;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const ByteSpan key = stored[i];
    Result<std::u16string> text =
        DecodeModifiedUtf8(key, "key " + std::to_string(first_number + i + 1));
    if (!text.ok()) {
      return Status::Corrupt(std::string(source), entry + 2,
                             "a key as DataOutput.writeUTF writes it (modified UTF-8), which the "
                             "0.6 filter hashed as a Java String",
                             text.status().message() + " (hex " +
                                 (key.size() > 64 ? ToHex(key.first(64)) + "..." : ToHex(key)) +
                                 ")");
    }
    scratch.clear();
    AppendJavaUtf16Bytes(*text, scratch);
    out.Add(ByteSpan(scratch));
    entry += 2 + key.size() + 8;
  }
  return {};
}

}  // namespace bloomcodec::cassandra
