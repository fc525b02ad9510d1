// An Index.db's keys a window at a time (index_key_stream.h).
#include "cassandra/index_key_stream.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"

namespace bloomcodec::cassandra {

IndexDbKeyStream::IndexDbKeyStream(InputFile file, IndexKeyForm key_form, IndexEntryForm entry_form,
                                   JavaStrings java_strings)
    : file_(std::move(file)),
      key_form_(key_form),
      entry_form_(entry_form),
      java_strings_(java_strings) {}

Status IndexDbKeyStream::ForEachChunk(const ChunkFn& fn) const {
  const ByteSpan bytes = file_.bytes();
  file_.AdviseSequential();
  IndexScan scan;
  std::vector<ByteSpan> window;
  KeyList stored, strings;
  std::vector<ByteSpan> string_spans;
  while (scan.offset < bytes.size()) {
    const std::uint64_t from = scan.offset;
    const std::uint64_t entries_before = scan.entries;
    window.clear();
    // Damage ends the pass before the window's keys are given: no filter from part of them.
    BLOOMCODEC_RETURN_IF_ERROR(ScanIndexEntries(bytes, file_.path(), key_form_, entry_form_,
                                                scan.offset + kStreamChunkBytes, scan, &window));
    std::span<const ByteSpan> keys(window);
    if (java_strings_ != JavaStrings::kNone) {
      stored.Assign(keys);
      strings.Clear();
      BLOOMCODEC_RETURN_IF_ERROR(
          java_strings_ == JavaStrings::kUtf8
              ? Utf8KeysFromIndex(stored, file_.path(), strings)
              : JavaStringKeysFromIndex(stored, file_.path(), strings, from, entries_before));
      string_spans.clear();
      for (std::size_t i = 0; i < strings.size(); ++i) string_spans.push_back(strings[i]);
      keys = string_spans;
    }
    for (std::size_t at = 0; at < keys.size(); at += kStreamChunkKeys) {
      BLOOMCODEC_RETURN_IF_ERROR(
          fn(keys.subspan(at, std::min(kStreamChunkKeys, keys.size() - at))));
    }
    file_.DropPages(from, scan.offset);
  }
  return Status();
}

}  // namespace bloomcodec::cassandra
