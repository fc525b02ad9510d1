// Key files in all three encodings: any bytes parse or give a Corrupt status naming the file
// with an offset inside it. Round trip: the keys parsed, written again as hex (and as base64),
// parse to the same keys; text keys written back as lines parse to the same keys.
#include <string>

#include "bloomcodec/key_list.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

template <typename Encode>
std::string Lines(const KeyList& keys, Encode encode) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out += encode(keys[i]);
    out += '\n';
  }
  return out;
}

void CheckReparse(const KeyList& keys, KeyFormat format, const std::string& file) {
  Result<KeyList> again = ParseKeyFile(AsBytes(file), format, "again");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(fuzz::SameKeys(*again, keys));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan input(data, size);
  for (KeyFormat format : {KeyFormat::kText, KeyFormat::kHex, KeyFormat::kBase64}) {
    Result<KeyList> parsed = ParseKeyFile(input, format, "keys");
    if (!parsed.ok()) {
      FUZZ_CHECK(format != KeyFormat::kText);  // any bytes are text keys
      fuzz::CheckNamesSource(parsed.status(), "keys");
      std::optional<std::uint64_t> at = parsed.status().offset();
      FUZZ_CHECK(at.has_value() && *at <= size);
      continue;
    }
    const KeyList& keys = *parsed;
    FUZZ_CHECK(keys.total_bytes() <= size);
    CheckReparse(keys, KeyFormat::kHex, Lines(keys, [](ByteSpan k) { return ToHex(k); }));
    CheckReparse(keys, KeyFormat::kBase64, Lines(keys, [](ByteSpan k) { return ToBase64(k); }));
    if (format == KeyFormat::kText) {
      CheckReparse(keys, KeyFormat::kText,
                   Lines(keys, [](ByteSpan k) { return std::string(AsChars(k)); }));
    }
  }
  return 0;
}
