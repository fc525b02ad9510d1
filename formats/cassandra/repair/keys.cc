#include "cassandra/repair/keys.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/era_table.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra {
namespace {

// Index.db a window at a time (as convert's IndexDbKeyStream), keys read in place.
class IndexKeys final : public KeyStream {
 public:
  IndexKeys(InputFile file, IndexKeyForm key_form, IndexEntryForm entry_form, bool java_strings)
      : file_(std::move(file)),
        key_form_(key_form),
        entry_form_(entry_form),
        java_strings_(java_strings) {}

  const std::string& source() const override { return file_.path(); }
  std::string_view key_unit() const override { return "entry"; }

  Status ForEachChunk(const ChunkFn& fn) const override {
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
      if (java_strings_) {
        // readUTF's Strings as the bytes the 0.6 filter hashed (String.getBytes("UTF-16")).
        stored.Assign(keys);
        strings.Clear();
        BLOOMCODEC_RETURN_IF_ERROR(
            JavaStringKeysFromIndex(stored, file_.path(), strings, from, entries_before));
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

 private:
  InputFile file_;
  IndexKeyForm key_form_;
  IndexEntryForm entry_form_;
  bool java_strings_;
};

// Partitions.db followed to Rows.db / Data.db (bti/verify_keys.h).
class TrieKeys final : public KeyStream {
 public:
  TrieKeys(std::string prefix, std::string version, std::string sstable_format)
      : prefix_(std::move(prefix)),
        source_(prefix_ + "Partitions.db"),
        version_(std::move(version)),
        sstable_format_(std::move(sstable_format)) {}

  const std::string& source() const override { return source_; }
  std::string_view key_unit() const override { return "partition"; }

  Status ForEachChunk(const ChunkFn& fn) const override {
    FileReport report;
    bti::TrieStreamLimits limits;
    limits.chunk_keys = kStreamChunkKeys;
    Status stopped;
    std::vector<ByteSpan> spans;
    const bti::TrieStreamResult r = bti::StreamTrieIndexKeys(
        prefix_, version_, sstable_format_, limits, report, [&](const KeyList& chunk) {
          if (!stopped.ok()) return;  // the walk goes on; what it finds is still reported
          spans.clear();
          for (std::size_t i = 0; i < chunk.size(); ++i) spans.push_back(chunk[i]);
          stopped = fn(spans);
        });
    for (const Finding& f : report.findings) {
      if (f.severity != Severity::kError && f.kind != finding_kind::kUnsupported) continue;
      return f.offset ? Status::Corrupt(source_, *f.offset,
                                        "a trie-indexed sstable whose keys "
                                        "can all be read",
                                        f.message)
                      : Status::CorruptFile(source_, f.message);
    }
    if (!r.opened || !r.trie_read || !r.complete) {
      return Status::CorruptFile(source_, "not every key of the sstable could be read");
    }
    return stopped;
  }

 private:
  std::string prefix_;
  std::string source_;
  std::string version_;
  std::string sstable_format_;
};

}  // namespace

Result<std::unique_ptr<KeyStream>> SstableKeys(const SstableFiles& sstable) {
  const Descriptor& d = sstable.descriptor;
  const Era era = d.era();
  if (bti::UsesTrieIndex(d.version, d.sstable_format)) {
    std::string prefix = sstable.filter_path;
    prefix.resize(prefix.size() - std::string_view("Filter.db").size());
    return std::unique_ptr<KeyStream>(
        std::make_unique<TrieKeys>(prefix, d.version, d.sstable_format));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(sstable.index_path));
  const bool murmur3 = Facts(era).hash == KeyHash::kMurmur3;
  // The 0.6 filter was given each entry's whole String; before e the other eras were given the
  // key inside RandomPartitioner's "<token>:<key>" (verify.cc's LoadIndex decides the same way).
  const bool java_strings = Facts(era).hash == KeyHash::kMurmur2x32JavaString;
  IndexKeyForm key_form = IndexKeyForm::kRaw;
  if (!murmur3 && !java_strings && IndexKeyFormForVersion(d.version) != IndexKeyForm::kRaw) {
    key_form =
        sstable.forced_key_form ? *sstable.forced_key_form : IndexKeyFormFor(d.version, in.bytes());
  }
  const IndexEntryForm entries =
      IndexEntryFormForVersion(murmur3 ? Facts(era).first_version : std::string_view(d.version));
  return std::unique_ptr<KeyStream>(
      std::make_unique<IndexKeys>(std::move(in), key_form, entries, java_strings));
}

}  // namespace bloomcodec::cassandra
