// KeyStream: a key file read in chunks gives exactly the keys, and exactly the error, of the
// whole file parsed at once (ParseKeyFile), and of an independent line splitter written here;
// chunks keep to kStreamChunkKeys / kStreamChunkBytes; a pass stops at the first error.
#include "bloomcodec/key_stream.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/key_list.h"
#include "bloomcodec/output_file.h"

namespace bloomcodec {
namespace {

constexpr KeyFormat kFormats[] = {KeyFormat::kText, KeyFormat::kHex, KeyFormat::kBase64};

std::string FormatName(KeyFormat f) {
  return f == KeyFormat::kText ? "text" : f == KeyFormat::kHex ? "hex" : "base64";
}

// Raw keys: random lengths 0..40 (every 13th key empty), plus `big` keys of the given sizes
// spread through the list. Text keys never hold '\n'.
std::vector<std::string> MakeKeys(std::size_t n, KeyFormat format, std::uint64_t seed,
                                  const std::vector<std::size_t>& big = {}) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t len = i % 13 == 5 ? 0 : static_cast<std::size_t>(rng() % 41);
    if (!big.empty() && i % (n / big.size() + 1) == 1) len = big[(i / (n / big.size() + 1))];
    std::string k(len, '\0');
    std::uint64_t bits = 0;
    for (std::size_t j = 0; j < len; ++j) {
      if (j % 8 == 0) bits = rng();
      char c = static_cast<char>(bits >> (j % 8 * 8) & 0xff);
      if (format == KeyFormat::kText && c == '\n') c = '\r';
      k[j] = c;
    }
    keys.push_back(std::move(k));
  }
  return keys;
}

std::string Encode(const std::string& key, KeyFormat format) {
  if (format == KeyFormat::kText) return key;
  return format == KeyFormat::kHex ? ToHex(AsBytes(key)) : ToBase64(AsBytes(key));
}

// The file of `keys`, one a line; the last line without '\n' when `final_newline` is false.
std::string KeyFileText(const std::vector<std::string>& keys, KeyFormat format,
                        bool final_newline = true) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out += Encode(keys[i], format);
    if (i + 1 < keys.size() || final_newline) out += '\n';
  }
  return out;
}

std::vector<std::string> Strings(const KeyList& keys) {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out.emplace_back(AsChars(keys[i]));
  return out;
}

// Every chunk of one pass, copied.
struct Pass {
  Status status;
  std::vector<std::vector<std::string>> chunks;
  std::vector<std::string> All() const {
    std::vector<std::string> all;
    for (const auto& c : chunks) all.insert(all.end(), c.begin(), c.end());
    return all;
  }
};

Pass RunPass(const KeyStream& stream) {
  Pass p;
  p.status = stream.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    std::vector<std::string> copy;
    for (const ByteSpan& k : chunk) copy.emplace_back(AsChars(k));
    p.chunks.push_back(std::move(copy));
    return Status();
  });
  return p;
}

// Chunks of at least one key, at most kStreamChunkKeys, cut as soon as their bytes reach
// kStreamChunkBytes (so without its last key a chunk holds less than that).
void ExpectChunkLimits(const Pass& p) {
  for (std::size_t c = 0; c < p.chunks.size(); ++c) {
    SCOPED_TRACE("chunk " + std::to_string(c));
    const auto& chunk = p.chunks[c];
    ASSERT_FALSE(chunk.empty());
    EXPECT_LE(chunk.size(), kStreamChunkKeys);
    std::size_t before_last = 0;
    for (std::size_t i = 0; i + 1 < chunk.size(); ++i) before_last += chunk[i].size();
    EXPECT_LT(before_last, kStreamChunkBytes);
  }
}

std::string FirstLinesOf(const std::string& text, std::size_t n) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < n; ++i) end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

void ExpectSameStatus(const Status& a, const Status& b) {
  EXPECT_EQ(a.code(), b.code());
  EXPECT_EQ(a.ToString(), b.ToString());
  EXPECT_EQ(a.offset(), b.offset());
}

// Checks one file's bytes: streamed == ParseKeyFile == `expected`.
void ExpectStreamEqualsParse(const std::string& file, KeyFormat format,
                             const std::vector<std::string>& expected) {
  auto parsed = ParseKeyFile(AsBytes(file), format, "keys.in");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(Strings(*parsed), expected);
  auto stream = KeyFileStream(AsBytes(file), format, "keys.in");
  EXPECT_EQ(stream->source(), "keys.in");
  EXPECT_EQ(stream->key_unit(), "line");
  auto collected = CollectKeys(*stream);
  ASSERT_TRUE(collected.ok()) << collected.status().ToString();
  EXPECT_TRUE(Strings(*collected) == Strings(*parsed));
  auto count = CountKeys(*stream);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, expected.size());
  const Pass p = RunPass(*stream);
  ASSERT_TRUE(p.status.ok()) << p.status.ToString();
  ExpectChunkLimits(p);
  EXPECT_TRUE(p.All() == expected);
  if (expected.size() <= kStreamChunkKeys) {
    std::size_t bytes = 0;
    for (const auto& k : expected) bytes += k.size();
    if (bytes < kStreamChunkBytes) {
      EXPECT_EQ(p.chunks.size(), expected.empty() ? 0u : 1u);
    }
  }
  // A second pass starts again from the first key.
  const Pass again = RunPass(*stream);
  EXPECT_TRUE(again.status.ok());
  EXPECT_TRUE(again.chunks == p.chunks);
}

TEST(KeyStream, ChunkedKeysEqualTheWholeFileForEverySizeAndFormat) {
  for (KeyFormat format : kFormats) {
    for (std::size_t n : {0, 1, 4095, 4096, 4097, 10000}) {
      for (bool final_newline : {true, false}) {
        SCOPED_TRACE(FormatName(format) + " n=" + std::to_string(n) +
                     (final_newline ? "" : " (no final newline)"));
        const auto keys = MakeKeys(n, format, 1000 + n);
        ExpectStreamEqualsParse(KeyFileText(keys, format, final_newline), format, keys);
      }
    }
  }
}

TEST(KeyStream, AnEmptyLastKeyWithoutNewlineIsNoKeyAndAnEmptyLineIsOne) {
  for (KeyFormat format : kFormats) {
    SCOPED_TRACE(FormatName(format));
    // "a\n\n": two keys, the second empty; "a\n": one key (a file ends after its last '\n').
    std::vector<std::string> keys = {"a", ""};
    ExpectStreamEqualsParse(KeyFileText(keys, format, true), format, keys);
    ExpectStreamEqualsParse(Encode("a", format) + "\n", format, {"a"});
    ExpectStreamEqualsParse("\n\n\n", format, {"", "", ""});
  }
}

// Keys of 1 MiB and more: a chunk ends as soon as its bytes reach kStreamChunkBytes, so each big
// key closes its chunk and the chunk after it starts fresh.
TEST(KeyStream, KeysOfAMebibyteAndMoreCutChunksByBytes) {
  for (KeyFormat format : kFormats) {
    SCOPED_TRACE(FormatName(format));
    const std::vector<std::size_t> big = {kStreamChunkBytes + kStreamChunkBytes / 4,
                                          kStreamChunkBytes, kStreamChunkBytes - 1, 600 * 1024};
    const auto keys = MakeKeys(9000, format, 77, big);
    const std::string file = KeyFileText(keys, format);
    ExpectStreamEqualsParse(file, format, keys);
    const Pass p = RunPass(*KeyFileStream(AsBytes(file), format, "big"));
    ASSERT_TRUE(p.status.ok());
    // The byte limit did cut: some chunk ended before kStreamChunkKeys keys, not at the end.
    bool cut_by_bytes = false;
    for (std::size_t c = 0; c + 1 < p.chunks.size(); ++c) {
      if (p.chunks[c].size() < kStreamChunkKeys) cut_by_bytes = true;
    }
    EXPECT_TRUE(cut_by_bytes);
    EXPECT_GT(p.chunks.size(), 3u);
  }
}

// A malformed line: the stream's Status is ParseKeyFile's, naming the line and its offset, and
// the keys delivered before it are exactly the lines before it.
TEST(KeyStream, AMalformedLineGivesTheWholeFilesStatusAfterTheKeysBeforeIt) {
  for (KeyFormat format : {KeyFormat::kHex, KeyFormat::kBase64}) {
    const auto keys = MakeKeys(20000, format, 5);
    // Line numbers (1-based): the first; inside the first chunk; the first of the second chunk;
    // after several chunks; the last line.
    for (std::size_t bad_line : {std::size_t{1}, std::size_t{100}, kStreamChunkKeys + 1,
                                 3 * kStreamChunkKeys + 517, std::size_t{20000}}) {
      SCOPED_TRACE(FormatName(format) + " bad line " + std::to_string(bad_line));
      std::string file;
      std::size_t bad_offset = 0;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i + 1 == bad_line) {
          bad_offset = file.size();
          file += "#not" + Encode(keys[i], format) + "\n";  // '#' is neither hex nor base64
        } else {
          file += Encode(keys[i], format) + "\n";
        }
      }
      auto parsed = ParseKeyFile(AsBytes(file), format, "bad.keys");
      ASSERT_FALSE(parsed.ok());
      const Status& whole = parsed.status();
      EXPECT_EQ(whole.code(), StatusCode::kCorrupt);
      EXPECT_EQ(whole.file(), "bad.keys");
      EXPECT_EQ(whole.offset(), bad_offset);
      EXPECT_NE(whole.ToString().find("line " + std::to_string(bad_line) + " "), std::string::npos)
          << whole.ToString();

      auto stream = KeyFileStream(AsBytes(file), format, "bad.keys");
      const Pass p = RunPass(*stream);
      ExpectSameStatus(p.status, whole);
      ExpectChunkLimits(p);
      const std::vector<std::string> before(keys.begin(),
                                            keys.begin() + static_cast<long>(bad_line - 1));
      EXPECT_TRUE(p.All() == before) << p.All().size() << " keys delivered";
      ExpectSameStatus(CollectKeys(*stream).status(), whole);
      ExpectSameStatus(CountKeys(*stream).status(), whole);
    }
  }
}

TEST(KeyStream, AnErrorFromTheCallbackEndsThePassWithThatError) {
  for (KeyFormat format : kFormats) {
    SCOPED_TRACE(FormatName(format));
    const std::string file = KeyFileText(MakeKeys(10000, format, 9), format);
    auto stream = KeyFileStream(AsBytes(file), format, "k");
    int calls = 0;
    const Status s = stream->ForEachChunk([&](std::span<const ByteSpan>) {
      return ++calls == 2 ? Status::Internal("stop after two") : Status();
    });
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_EQ(s.message(), "stop after two");
  }
  // The callback's error wins over a malformed line after the keys it was given.
  const std::string file = KeyFileText(MakeKeys(100, KeyFormat::kHex, 10), KeyFormat::kHex);
  const std::string bad = FirstLinesOf(file, 10) + "zz!\n";
  auto stream = KeyFileStream(AsBytes(bad), KeyFormat::kHex, "k");
  const Status s = stream->ForEachChunk([&](std::span<const ByteSpan> chunk) {
    return Status::Refused(std::to_string(chunk.size()));
  });
  EXPECT_EQ(s.code(), StatusCode::kRefused);
  EXPECT_EQ(s.message(), "10");
}

// A private directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string templ =
        (std::filesystem::temp_directory_path() / "bloomcodec-key-stream-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp";
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& contents) const {
    const std::string path = path_ + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    return path;
  }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A real file is mapped and read in windows, its pages dropped behind the cursor: the keys are
// still those of the whole file (text keys are the mapping's own bytes).
TEST(KeyStream, OpenKeyFileOfAMappedFileGivesTheKeysOfTheWholeFile) {
  TempDir dir;
  for (KeyFormat format : kFormats) {
    SCOPED_TRACE(FormatName(format));
    // Several MiB, so that pages are given back more than once during a pass.
    const auto keys = MakeKeys(12000, format, 31, {700 * 1024, 1500 * 1024, 900 * 1024});
    const std::string text = KeyFileText(keys, format, false);
    ASSERT_GT(text.size(), 3 * kStreamChunkBytes);
    const std::string path = dir.Write("keys." + FormatName(format), text);
    auto opened = OpenKeyFile(path, format);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    const KeyStream& stream = **opened;
    EXPECT_EQ(stream.source(), path);
    EXPECT_EQ(stream.key_unit(), "line");
    auto parsed = ParseKeyFile(AsBytes(text), format, path);
    ASSERT_TRUE(parsed.ok());
    const Pass p = RunPass(stream);
    ASSERT_TRUE(p.status.ok()) << p.status.ToString();
    ExpectChunkLimits(p);
    EXPECT_TRUE(p.All() == Strings(*parsed));
    EXPECT_TRUE(p.All() == keys);
    // Pages dropped by the first pass are read again by the second.
    const Pass again = RunPass(stream);
    EXPECT_TRUE(again.status.ok());
    EXPECT_TRUE(again.chunks == p.chunks);
  }
}

TEST(KeyStream, OpenKeyFileOfAMappedFileReportsAMalformedLineAsParseKeyFileDoes) {
  TempDir dir;
  const auto keys = MakeKeys(9000, KeyFormat::kHex, 12);
  std::string text = KeyFileText(keys, KeyFormat::kHex);
  const std::string head = FirstLinesOf(text, 6000);
  text = head + "0g\n" + text.substr(head.size());
  const std::string path = dir.Write("bad.hex", text);
  auto opened = OpenKeyFile(path, KeyFormat::kHex);
  ASSERT_TRUE(opened.ok());
  const Pass p = RunPass(**opened);
  const Status whole = ParseKeyFile(AsBytes(text), KeyFormat::kHex, path).status();
  ASSERT_FALSE(whole.ok());
  ExpectSameStatus(p.status, whole);
  EXPECT_EQ(p.status.offset(), head.size());
  EXPECT_NE(p.status.ToString().find("line 6001 "), std::string::npos) << p.status.ToString();
  EXPECT_TRUE(p.All() == std::vector<std::string>(keys.begin(), keys.begin() + 6000));
}

TEST(KeyStream, OpenKeyFileInflatesAGzippedFile) {
  TempDir dir;
  for (KeyFormat format : kFormats) {
    SCOPED_TRACE(FormatName(format));
    const auto keys = MakeKeys(10000, format, 44);
    const std::string text = KeyFileText(keys, format);
    const std::string path = dir.Path("keys-" + FormatName(format) + ".gz");
    ASSERT_TRUE(WriteFileAtomically(path, AsBytes(text)).ok());
    // Really compressed on disk.
    std::ifstream raw(path, std::ios::binary);
    const std::string on_disk((std::istreambuf_iterator<char>(raw)), {});
    ASSERT_GE(on_disk.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(on_disk[0]), 0x1f);
    auto opened = OpenKeyFile(path, format);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    const Pass p = RunPass(**opened);
    ASSERT_TRUE(p.status.ok());
    ExpectChunkLimits(p);
    EXPECT_TRUE(p.All() == keys);
  }
}

TEST(KeyStream, OpenKeyFileOfAMissingFileNamesThePath) {
  TempDir dir;
  const std::string path = dir.Path("no-such-keys.txt");
  auto opened = OpenKeyFile(path, KeyFormat::kText);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().ToString().find(path), std::string::npos) << opened.status().ToString();
  auto gz = OpenKeyFile(path + ".gz", KeyFormat::kHex);
  ASSERT_FALSE(gz.ok());
  EXPECT_NE(gz.status().ToString().find(path + ".gz"), std::string::npos);
}

TEST(KeyStream, KeyListStreamDeliversTheListInChunks) {
  const auto keys = MakeKeys(10000, KeyFormat::kHex, 3);
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  auto stream = KeyListStream(list, "Index.db", "entry");
  EXPECT_EQ(stream->source(), "Index.db");
  EXPECT_EQ(stream->key_unit(), "entry");
  EXPECT_EQ(KeyListStream(list, "x")->key_unit(), "line");
  const Pass p = RunPass(*stream);
  ASSERT_TRUE(p.status.ok());
  ExpectChunkLimits(p);
  ASSERT_EQ(p.chunks.size(), 3u);
  EXPECT_EQ(p.chunks[0].size(), kStreamChunkKeys);
  EXPECT_EQ(p.chunks[1].size(), kStreamChunkKeys);
  EXPECT_EQ(p.chunks[2].size(), 10000 - 2 * kStreamChunkKeys);
  EXPECT_TRUE(p.All() == keys);
  auto count = CountKeys(*stream);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 10000u);
  auto collected = CollectKeys(*stream);
  ASSERT_TRUE(collected.ok());
  EXPECT_TRUE(Strings(*collected) == keys);
  // No keys: no chunk at all.
  KeyList none;
  EXPECT_TRUE(RunPass(*KeyListStream(none, "empty")).chunks.empty());
  // The callback's error ends the pass.
  int calls = 0;
  const Status s = stream->ForEachChunk([&](std::span<const ByteSpan>) {
    ++calls;
    return Status::Internal("enough");
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(s.message(), "enough");
}

}  // namespace
}  // namespace bloomcodec
