// Key files read as a stream (KeyFileStream, what convert reads --keys through) against the whole
// file parsed at once (ParseKeyFile) and a plain line-by-line reader of the contract written here,
// in all three encodings: the same keys, or the same Status (code, text, offset, line). The chunks are non-empty, at most kStreamChunkKeys keys, cut once their
// bytes reach kStreamChunkBytes; on a malformed line the keys delivered are exactly those of the
// lines before it. A first input byte N of 0xf0 or more puts 1024 * (N - 0xef) lines "AAAA" (a
// key in every encoding; 0xf3: 4096 lines, one whole chunk) before the rest of the input, so that
// a short input reaches chunk boundaries and errors after several chunks; below 0xf0 (most inputs,
// which keeps the run fast) the rest of the input is the file.
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

// The contract of key files written out plainly (one line at a time, no chunks): the keys, or
// the offset and number of the first malformed line.
struct Reference {
  KeyList keys;
  std::optional<std::size_t> bad_offset;
  std::size_t bad_line = 0;
};
Reference ReadPlainly(ByteSpan file, KeyFormat format) {
  Reference r;
  std::size_t begin = 0, line = 0;
  ByteVector decoded;
  while (begin < file.size()) {
    ++line;
    std::size_t end = begin;
    while (end < file.size() && file[end] != '\n') ++end;
    const std::string_view text = AsChars(file.subspan(begin, end - begin));
    decoded.clear();
    const bool ok = format == KeyFormat::kText  ? (decoded.assign(text.begin(), text.end()), true)
                    : format == KeyFormat::kHex ? FromHex(text, decoded)
                                                : FromBase64(text, decoded);
    if (!ok) {
      r.bad_offset = begin;
      r.bad_line = line;
      return r;
    }
    r.keys.Add(ByteSpan(decoded));
    begin = end + 1;
  }
  return r;
}

void CheckFormat(ByteSpan file, KeyFormat format) {
  Result<KeyList> whole = ParseKeyFile(file, format, kSource);
  const Reference plain = ReadPlainly(file, format);
  FUZZ_CHECK(whole.ok() == !plain.bad_offset.has_value());
  if (whole.ok()) {
    FUZZ_CHECK(fuzz::SameKeys(*whole, plain.keys));
  } else {
    FUZZ_CHECK(whole.status().code() == StatusCode::kCorrupt);
    FUZZ_CHECK(whole.status().offset() == plain.bad_offset);
    FUZZ_CHECK(whole.status().ToString().find("line " + std::to_string(plain.bad_line) + " ") !=
               std::string::npos);
  }
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
  if (whole.ok()) {
    FUZZ_CHECK(s.ok() && collected.ok());
    FUZZ_CHECK(fuzz::SameKeys(delivered, *whole));
    FUZZ_CHECK(fuzz::SameKeys(*collected, *whole));
    return;
  }
  FUZZ_CHECK(format != KeyFormat::kText);  // any bytes are text keys
  FUZZ_CHECK(SameStatus(s, whole.status()));
  FUZZ_CHECK(!collected.ok() && SameStatus(collected.status(), whole.status()));
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
  const std::size_t filler = data[0] >= 0xf0 ? std::size_t{data[0] - 0xefu} * 1024 : 0;
  file.reserve(filler * 5 + size);
  for (std::size_t i = 0; i < filler; ++i) file += "AAAA\n";
  file.append(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (KeyFormat format : {KeyFormat::kText, KeyFormat::kHex, KeyFormat::kBase64}) {
    CheckFormat(AsBytes(file), format);
  }
  return 0;
}
