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
#include "cassandra/index_key_stream.h"

namespace bloomcodec::cassandra {
namespace {

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
  return std::unique_ptr<KeyStream>(std::make_unique<IndexDbKeyStream>(
      std::move(in), key_form, entries,
      java_strings ? JavaStrings::kUtf16Bytes : JavaStrings::kNone));
}

}  // namespace bloomcodec::cassandra
