// Keys as Java Strings (cassandra-0.6): any bytes decode as UTF-8 and as modified UTF-8 or give
// an InvalidArgument naming the text and a byte offset inside it. Strict UTF-8 is one-to-one (a
// decoded text re-encodes to exactly its bytes); readUTF's decoding is stable under writeUTF's
// encoding; getBytes("UTF-16") is empty for no characters, else fe ff and 2 bytes per unit. The
// input read as Index.db keys ('\n'-separated) converts, or fails at an entry offset inside the
// file those keys make.
#include <optional>
#include <string>

#include "bloomcodec/cassandra/java_string.h"
#include "fuzz_support.h"
#include "tests/support/java_text.h"

using namespace bloomcodec;

namespace {

void CheckUtf16(std::u16string_view s) {
  const ByteVector bytes = cassandra::JavaUtf16Bytes(s);
  if (s.empty()) {
    FUZZ_CHECK(bytes.empty());
    return;
  }
  FUZZ_CHECK(bytes.size() == 2 + 2 * s.size());
  FUZZ_CHECK(bytes[0] == 0xfe && bytes[1] == 0xff);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan input(data, size);
  Result<std::u16string> text = cassandra::DecodeUtf8Text(input, "the text");
  if (text.ok()) {
    const std::optional<std::string> utf8 = cassandra::Utf8FromUtf16(*text, false);
    FUZZ_CHECK(utf8.has_value() && fuzz::SameBytes(AsBytes(*utf8), input));
    CheckUtf16(*text);
  } else {
    FUZZ_CHECK(text.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(text.status().message().find("the text") != std::string::npos);
  }
  Result<std::u16string> modified = cassandra::DecodeModifiedUtf8(input, "the key");
  if (modified.ok()) {
    FUZZ_CHECK(modified->size() <= size);
    Result<std::u16string> again =
        cassandra::DecodeModifiedUtf8(testing::ModifiedUtf8(*modified), "again");
    FUZZ_CHECK(again.ok() && *again == *modified);
    CheckUtf16(*modified);
  } else {
    FUZZ_CHECK(modified.status().message().find("the key") != std::string::npos);
  }
  // The input as Index.db keys: entries of 2 + L + 8 bytes.
  KeyList keys;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\n') {
      keys.Add(input.subspan(start, i - start));
      start = i + 1;
    }
  }
  KeyList out;
  Status s = cassandra::JavaStringKeysFromIndex(keys, "Index.db", out);
  if (!s.ok()) {
    fuzz::CheckNamesSource(s, "Index.db");
    FUZZ_CHECK(out.size() < keys.size());
    FUZZ_CHECK(s.offset().has_value() && *s.offset() < keys.total_bytes() + 10 * keys.size());
  } else {
    FUZZ_CHECK(out.size() == keys.size());
  }
  return 0;
}
