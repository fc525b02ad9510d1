// Key files read as a stream (KeyFileStream, what convert reads --keys through) against the whole
// file parsed at once (ParseKeyFile), in all three encodings: the same keys, or the same Status
// (code, text, offset). The chunks are non-empty, at most kStreamChunkKeys keys, cut once their
// bytes reach kStreamChunkBytes; on a malformed line the keys delivered are exactly those of the
// lines before it. The first input byte N puts 64 * N lines "AAAA" (a key in every encoding)
// before the rest of the input, so that a short input reaches chunk boundaries and errors after
// several chunks.
#include <cstring>
#include <string>

#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

constexpr std::string_view kSource = "keys.in";

bool SameStatus(const Status& a, const Status& b) {
  return a.code() == b.code() && a.ToString() == b.ToString() && a.offset() == b.offset();
}

void CheckFormat(ByteSpan file, KeyFormat format) {
  Result<KeyList> whole = ParseKeyFile(file, format, kSource);
  const std::unique_ptr<KeyStream> stream = KeyFileStream(file, format, std::string(kSource));
  FUZZ_CHECK(stream->source() == kSource && stream->key_unit() == "line");

  KeyList delivered;
  const Status s = stream->ForEachChunk([&](std::span<const ByteSpan> chunk) {
    FUZZ_CHECK(!chunk.empty() && chunk.size() <= kStreamChunkKeys);
    std::size_t before_last = 0;
    for (std::size_t i = 0; i + 1 < chunk.size(); ++i) before_last += chunk[i].size();
    FUZZ_CHECK(before_last < kStreamChunkBytes);
    for (const ByteSpan& k : chunk) delivered.Add(k);
    return Status();
  });
  Result<KeyList> collected = CollectKeys(*stream);
  Result<std::uint64_t> counted = CountKeys(*stream);
  if (whole.ok()) {
    FUZZ_CHECK(s.ok() && collected.ok() && counted.ok());
    FUZZ_CHECK(fuzz::SameKeys(delivered, *whole));
    FUZZ_CHECK(fuzz::SameKeys(*collected, *whole));
    FUZZ_CHECK(*counted == whole->size());
    return;
  }
  FUZZ_CHECK(format != KeyFormat::kText);  // any bytes are text keys
  FUZZ_CHECK(SameStatus(s, whole.status()));
  FUZZ_CHECK(!collected.ok() && SameStatus(collected.status(), whole.status()));
  FUZZ_CHECK(!counted.ok() && SameStatus(counted.status(), whole.status()));
  // The keys delivered before the error are the keys of the lines before the malformed one.
  const std::optional<std::uint64_t> at = whole.status().offset();
  FUZZ_CHECK(at.has_value() && *at <= file.size());
  FUZZ_CHECK(*at == 0 || file[*at - 1] == '\n');
  Result<KeyList> before = ParseKeyFile(file.first(*at), format, kSource);
  FUZZ_CHECK(before.ok());
  FUZZ_CHECK(fuzz::SameKeys(delivered, *before));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string file;
  const std::size_t filler = std::size_t{data[0]} * 64;
  file.reserve(filler * 5 + size);
  for (std::size_t i = 0; i < filler; ++i) file += "AAAA\n";
  file.append(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (KeyFormat format : {KeyFormat::kText, KeyFormat::kHex, KeyFormat::kBase64}) {
    CheckFormat(AsBytes(file), format);
  }
  return 0;
}
