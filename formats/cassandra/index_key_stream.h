// Internal to the Cassandra family: an Index.db's keys as a KeyStream, a window at a time
// (ScanIndexEntries), the keys read in place in the mapping whose pages are given back behind
// the scan, so that a pass over an Index.db of any size holds one window of it. Shared by
// convert --index (convert.cc) and repair (repair/keys.cc).
//
//   auto keys = std::make_unique<IndexDbKeyStream>(std::move(file), form, entries,
//                                                  JavaStrings::kNone);
//   keys->ForEachChunk([&](std::span<const ByteSpan> chunk) { ... });
//
// Contract: every pass gives the same keys in file order, in chunks of at most kStreamChunkKeys.
// Damage in a window ends the pass with its Corrupt status before any key of that window is
// given: a filter must never be built from part of the keys. 0.6's entries are Java Strings
// (readUTF): given as UTF-8 text (what the cassandra-0.6 codec takes) or as the bytes the 0.6
// filter hashed (String.getBytes("UTF-16")).
#pragma once

#include <string>
#include <string_view>

#include "bloomcodec/input_file.h"
#include "bloomcodec/key_stream.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra {

enum class JavaStrings { kNone, kUtf8, kUtf16Bytes };

class IndexDbKeyStream final : public KeyStream {
 public:
  IndexDbKeyStream(InputFile file, IndexKeyForm key_form, IndexEntryForm entry_form,
                   JavaStrings java_strings);

  const std::string& source() const override { return file_.path(); }
  std::string_view key_unit() const override { return "entry"; }
  Status ForEachChunk(const ChunkFn& fn) const override;

 private:
  InputFile file_;
  IndexKeyForm key_form_;
  IndexEntryForm entry_form_;
  JavaStrings java_strings_;
};

}  // namespace bloomcodec::cassandra
