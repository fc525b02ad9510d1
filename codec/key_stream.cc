// Key files read in chunks (key_stream.h), and ParseKeyFile, which is the same reader collected.
#include "bloomcodec/key_stream.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "bloomcodec/input_file.h"

namespace bloomcodec {
namespace {

std::string_view FormatExpectation(KeyFormat format) {
  return format == KeyFormat::kHex ? "hex (two digits per byte)"
                                   : "base64 (standard alphabet, padded)";
}

Status MalformedLine(std::string_view source, std::size_t offset, std::size_t line_number,
                     KeyFormat format, ByteSpan line) {
  const std::size_t shown = std::min<std::size_t>(line.size(), 40);
  return Status::Corrupt(
      std::string(source), offset,
      "line " + std::to_string(line_number) + " to be " + std::string(FormatExpectation(format)),
      "\"" + std::string(AsChars(line.first(shown))) + (line.size() > shown ? "...\"" : "\""));
}

// The one line reader of key files. Calls `fn` with chunks of keys; `dropped(end)` after each
// chunk tells the owner of a mapping that the bytes before `end` will not be read again.
Status ReadKeyLines(ByteSpan contents, KeyFormat format, std::string_view source,
                    const KeyStream::ChunkFn& fn,
                    const std::function<void(std::size_t end)>& dropped) {
  std::vector<ByteSpan> chunk;
  chunk.reserve(kStreamChunkKeys);
  // Decoded keys: their ends in `decoded`, turned into spans once the chunk is complete (the
  // buffer may move while it grows).
  ByteVector decoded;
  std::vector<std::size_t> ends;
  std::size_t begin = 0, line_number = 0, chunk_bytes = 0;
  auto deliver = [&]() -> Status {
    if (format != KeyFormat::kText) {
      std::size_t start = 0;
      for (std::size_t end : ends) {
        chunk.push_back(ByteSpan(decoded).subspan(start, end - start));
        start = end;
      }
    }
    Status s = fn(std::span<const ByteSpan>(chunk));
    chunk.clear();
    decoded.clear();
    ends.clear();
    chunk_bytes = 0;
    if (dropped) dropped(begin);
    return s;
  };
  while (begin < contents.size()) {
    ++line_number;
    const auto from = contents.begin() + static_cast<std::ptrdiff_t>(begin);
    const std::size_t end =
        static_cast<std::size_t>(std::find(from, contents.end(), '\n') - contents.begin());
    const ByteSpan line = contents.subspan(begin, end - begin);
    if (format == KeyFormat::kText) {
      chunk.push_back(line);
      chunk_bytes += line.size();
    } else {
      const std::size_t before = decoded.size();
      const bool ok = format == KeyFormat::kHex ? FromHex(AsChars(line), decoded)
                                                : FromBase64(AsChars(line), decoded);
      if (!ok) {
        decoded.resize(before);
        // The keys before the bad line were read: they go out first, as a whole read would
        // have returned nothing but the error. Callers that must not act make a counting pass.
        if (!ends.empty()) BLOOMCODEC_RETURN_IF_ERROR(deliver());
        return MalformedLine(source, begin, line_number, format, line);
      }
      ends.push_back(decoded.size());
      chunk_bytes += decoded.size() - before;
    }
    begin = end + 1;
    const std::size_t keys = format == KeyFormat::kText ? chunk.size() : ends.size();
    if (keys >= kStreamChunkKeys || chunk_bytes >= kStreamChunkBytes) {
      BLOOMCODEC_RETURN_IF_ERROR(deliver());
    }
  }
  const std::size_t keys = format == KeyFormat::kText ? chunk.size() : ends.size();
  if (keys > 0) BLOOMCODEC_RETURN_IF_ERROR(deliver());
  return Status();
}

class FileKeys final : public KeyStream {
 public:
  FileKeys(InputFile file, KeyFormat format)
      : file_(std::move(file)),
        contents_(file_->bytes()),
        format_(format),
        source_(file_->path()) {}
  FileKeys(ByteSpan contents, KeyFormat format, std::string source)
      : contents_(contents), format_(format), source_(std::move(source)) {}

  const std::string& source() const override { return source_; }
  std::string_view key_unit() const override { return "line"; }
  Status ForEachChunk(const ChunkFn& fn) const override {
    if (!file_ || !file_->is_mapped()) {
      return ReadKeyLines(contents_, format_, source_, fn, nullptr);
    }
    file_->AdviseSequential();
    std::size_t given_back = 0;
    return ReadKeyLines(contents_, format_, source_, fn, [&](std::size_t end) {
      // Text keys are the mapping's bytes: only pages before the delivered chunk are dropped.
      if (end - given_back >= kStreamChunkBytes) {
        file_->DropPages(given_back, end);
        given_back = end;
      }
    });
  }

 private:
  std::optional<InputFile> file_;  // none: bytes the caller holds
  ByteSpan contents_;
  KeyFormat format_;
  std::string source_;
};

class ListKeys final : public KeyStream {
 public:
  ListKeys(const KeyList& keys, std::string source, std::string_view unit)
      : keys_(keys), source_(std::move(source)), unit_(unit) {}
  const std::string& source() const override { return source_; }
  std::string_view key_unit() const override { return unit_; }
  Status ForEachChunk(const ChunkFn& fn) const override {
    std::vector<ByteSpan> chunk;
    chunk.reserve(std::min(keys_.size(), kStreamChunkKeys));
    for (std::size_t i = 0; i < keys_.size(); i += kStreamChunkKeys) {
      chunk.clear();
      const std::size_t end = std::min(keys_.size(), i + kStreamChunkKeys);
      for (std::size_t k = i; k < end; ++k) chunk.push_back(keys_[k]);
      BLOOMCODEC_RETURN_IF_ERROR(fn(std::span<const ByteSpan>(chunk)));
    }
    return Status();
  }

 private:
  const KeyList& keys_;
  std::string source_;
  std::string_view unit_;
};

}  // namespace

Result<std::unique_ptr<KeyStream>> OpenKeyFile(const std::string& path, KeyFormat format) {
  Result<InputFile> file = path == "-" ? InputFile::ReadStdin() : InputFile::Open(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<KeyStream>(std::make_unique<FileKeys>(std::move(*file), format));
}

std::unique_ptr<KeyStream> KeyFileStream(ByteSpan contents, KeyFormat format, std::string source) {
  return std::make_unique<FileKeys>(contents, format, std::move(source));
}

std::unique_ptr<KeyStream> KeyListStream(const KeyList& keys, std::string source,
                                         std::string_view key_unit) {
  return std::make_unique<ListKeys>(keys, std::move(source), key_unit);
}

Result<std::uint64_t> CountKeys(const KeyStream& keys) {
  std::uint64_t n = 0;
  BLOOMCODEC_RETURN_IF_ERROR(keys.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    n += chunk.size();
    return Status();
  }));
  return n;
}

Result<KeyList> CollectKeys(const KeyStream& keys) {
  KeyList all;
  BLOOMCODEC_RETURN_IF_ERROR(keys.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    for (const ByteSpan& k : chunk) all.Add(k);
    return Status();
  }));
  return all;
}

Result<KeyList> ParseKeyFile(ByteSpan contents, KeyFormat format, std::string_view source) {
  KeyList keys;
  if (contents.empty()) return keys;
  std::size_t lines = static_cast<std::size_t>(std::count(contents.begin(), contents.end(), '\n'));
  if (contents.back() != '\n') ++lines;
  keys.Reserve(lines, format == KeyFormat::kText ? contents.size() : contents.size() / 2 + 1);
  BLOOMCODEC_RETURN_IF_ERROR(ReadKeyLines(
      contents, format, source,
      [&](std::span<const ByteSpan> chunk) {
        for (const ByteSpan& k : chunk) keys.Add(k);
        return Status();
      },
      nullptr));
  return keys;
}

}  // namespace bloomcodec
