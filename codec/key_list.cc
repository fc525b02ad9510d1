#include "bloomcodec/key_list.h"

#include <algorithm>

namespace bloomcodec {

bool ParseKeyFormat(std::string_view name, KeyFormat& out) {
  if (name == "text")
    out = KeyFormat::kText;
  else if (name == "hex")
    out = KeyFormat::kHex;
  else if (name == "base64")
    out = KeyFormat::kBase64;
  else
    return false;
  return true;
}

Result<KeyList> ParseKeyFile(ByteSpan contents, KeyFormat format, std::string_view source) {
  KeyList keys;
  if (contents.empty()) return keys;
  std::size_t lines = static_cast<std::size_t>(std::count(contents.begin(), contents.end(), '\n'));
  if (contents.back() != '\n') ++lines;
  keys.Reserve(lines, format == KeyFormat::kText ? contents.size() : contents.size() / 2 + 1);

  ByteVector decoded;
  std::size_t begin = 0, line_number = 0;
  while (begin < contents.size()) {
    ++line_number;
    auto newline =
        std::find(contents.begin() + static_cast<std::ptrdiff_t>(begin), contents.end(), '\n');
    std::size_t end = static_cast<std::size_t>(newline - contents.begin());
    ByteSpan line = contents.subspan(begin, end - begin);
    if (format == KeyFormat::kText) {
      keys.Add(line);
    } else {
      decoded.clear();
      bool ok = format == KeyFormat::kHex ? FromHex(AsChars(line), decoded)
                                          : FromBase64(AsChars(line), decoded);
      if (!ok) {
        return Status::Corrupt(
            std::string(source), begin,
            std::string("line ") + std::to_string(line_number) + " to be " +
                (format == KeyFormat::kHex ? "hex (two digits per byte)"
                                           : "base64 (standard alphabet, padded)"),
            "\"" + std::string(AsChars(line.first(std::min<std::size_t>(line.size(), 40)))) +
                (line.size() > 40 ? "...\"" : "\""));
      }
      keys.Add(ByteSpan(decoded));
    }
    begin = end + 1;
  }
  return keys;
}

}  // namespace bloomcodec
