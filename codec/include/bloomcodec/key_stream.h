// KeyStream: keys read in bounded chunks, in order, as many passes as the reader needs.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<bloomcodec::KeyStream> keys,
//       bloomcodec::OpenKeyFile("keys.hex", bloomcodec::KeyFormat::kHex));
//   std::vector<std::uint8_t> answers;
//   BLOOMCODEC_RETURN_IF_ERROR(keys->ForEachChunk([&](std::span<const bloomcodec::ByteSpan> chunk) {
//     answers.resize(chunk.size());
//     filter.MayContainBatch(chunk, answers);
//     return bloomcodec::Status();
//   }));
//
// A key file of any size is read through a window: the process holds one chunk of keys (at most
// kStreamChunkKeys keys, about kStreamChunkBytes of them), never the file. Text keys are the
// mapped file's own bytes; hex and base64 keys are decoded into one buffer reused by every chunk.
// A pass stops at the first malformed line, with the Status ParseKeyFile gives for the same file,
// after the chunks before it were delivered; callers that must not act on a bad file make a
// first pass (CountKeys) before they act.
//
// Lifetimes: the spans of a chunk are valid during the call only. Each ForEachChunk is a new pass
// from the first key, with its own state: passes may run on several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

inline constexpr std::size_t kStreamChunkKeys = 4096;
inline constexpr std::size_t kStreamChunkBytes = std::size_t{1} << 20;

class KeyStream {
 public:
  using ChunkFn = std::function<Status(std::span<const ByteSpan> keys)>;

  virtual ~KeyStream() = default;
  // Where the keys come from, for messages: a path, "<stdin>".
  virtual const std::string& source() const = 0;
  // What one key is in the source, for messages: "line" (key files), "entry" (Index.db).
  virtual std::string_view key_unit() const = 0;
  // One pass: `fn` gets every key once, in order, in chunks of 1 to kStreamChunkKeys keys.
  // Returns the first error, the source's or the one `fn` returned (which ends the pass).
  virtual Status ForEachChunk(const ChunkFn& fn) const = 0;
};

// The keys of a key file of the command-line contract (`--keys`): "-" is standard input (read
// whole, since a pipe cannot be read twice); a name ending in ".gz" is inflated a piece at a time
// on every pass; any other file is mapped and read in windows, its pages given back behind the
// cursor.
Result<std::unique_ptr<KeyStream>> OpenKeyFile(const std::string& path, KeyFormat format);
// The same over bytes already in memory (tests, fuzzers), named `source` in messages.
std::unique_ptr<KeyStream> KeyFileStream(ByteSpan contents, KeyFormat format, std::string source);
// Keys already in a KeyList (not copied: `keys` must outlive the stream).
std::unique_ptr<KeyStream> KeyListStream(const KeyList& keys, std::string source,
                                         std::string_view key_unit = "line");

// One pass that counts the keys (and finds a malformed line before anything acts on the keys).
Result<std::uint64_t> CountKeys(const KeyStream& keys);
// One pass that copies every key into a KeyList (formats that need all keys at once).
Result<KeyList> CollectKeys(const KeyStream& keys);

}  // namespace bloomcodec
