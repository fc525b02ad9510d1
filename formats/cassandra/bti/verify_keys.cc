#include "cassandra/bti/verify_keys.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/encryption.h"
#include "cassandra/bti/key_paths.h"
#include "cassandra/bti/page_window.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/murmur3/hash_inline.h"
#include "codec/parallel.h"

namespace bloomcodec::cassandra::bti {
namespace {

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// What reading the keys found, for verify's findings and inspect's line.
struct TrieKeys {
  bool opened = false;
  std::vector<Finding> findings;
  std::string summary;
  bool trie_read = false;
  std::uint64_t key_count = 0;  // the footer's
  std::uint64_t keys_read = 0;
  std::uint64_t via_rows = 0;
  std::optional<CompressionInfo> compression;
};

Finding Damage(const std::string& path, const Status& s, const std::string& note = {}) {
  Finding f = FindingFromStatus(Severity::kError, finding_kind::kIndex, s);
  f.message = path + ": " + f.message + note;
  return f;
}

using ChunkSink = std::function<void(const KeyList& chunk, std::span<const std::int64_t> positions,
                                     std::span<const Murmur3Hash> hashes)>;

// A payload the walk gave, waiting for its key.
struct Pending {
  std::uint64_t node_offset;
  std::int64_t position;
  std::int16_t hash;        // -1: none
  std::uint32_t path_size;  // its trie path, at path_at of the batch's paths; kNoPath: unchecked
  std::uint64_t path_at;
};
constexpr std::uint32_t kNoPath = ~std::uint32_t{0};
// The path bytes a batch keeps at most (a crafted trie's paths can be as long as the trie; real
// ones are a few bytes each): the payloads beyond go unchecked.
constexpr std::uint64_t kMaxBatchPathBytes = 16u << 20;

// The keys of a contiguous run of payloads, read by one reader pair (one ParallelFor item).
struct Slice {
  std::unique_ptr<DataReader> data, rows;
  PageWindow data_window, rows_window;
  KeyList keys;
  std::vector<std::int64_t> positions;
  std::vector<Murmur3Hash> hashes;  // each key's CassandraMurmur3
  ByteVector key;                   // the read buffer
  std::size_t unreadable = 0, via_rows = 0, mismatched = 0;
  std::optional<Finding> first_damage, hash_mismatch;
  PathTally paths;
};

// Fewer payloads than this per slice are read by one reader (a slice decompresses the chunks
// at its edges again).
constexpr std::size_t kMinSliceKeys = 1024;

// How Data.db is read, as CompressionInfo.db beside it says (uncompressed without one), and the
// words of the key-source line for it.
struct DataCompression {
  std::optional<CompressionInfo> info;
  std::string text = "Data.db uncompressed";
  bool damaged = false;      // CompressionInfo.db cannot be used: Data.db is not read
  bool unsupported = false;  // a compressor we do not read: the keys in Data.db go unchecked
};

DataCompression ReadDataCompression(const std::string& info_path, std::string_view version,
                                    std::string_view sstable_format,
                                    std::vector<Finding>& findings) {
  DataCompression out;
  if (!Exists(info_path)) return out;
  Result<InputFile> ci = InputFile::Open(info_path);
  Result<CompressionInfo> parsed =
      ci.ok() ? ReadCompressionInfo(ci->bytes(), info_path,
                                    HasMaxCompressedLength(version, sstable_format))
              : Result<CompressionInfo>(ci.status());
  if (parsed.ok()) {
    out.info = std::move(parsed).value();
    out.text = "Data.db " + std::string(CompressorName(out.info->compressor)) + "-compressed (" +
               std::to_string(out.info->chunk_offsets.size()) +
               (out.info->chunk_offsets.size() == 1 ? " chunk" : " chunks") + " of " +
               std::to_string(out.info->chunk_length) + " bytes)";
    return out;
  }
  out.damaged = true;
  if (parsed.status().code() == StatusCode::kUnsupported) {
    // Not damage: a compressor we do not read (or DSE's encryption); the keys in Data.db go
    // unchecked.
    Finding f;
    f.severity = Severity::kWarning;
    f.kind = finding_kind::kUnsupported;
    f.message = parsed.status().ToString() + ": the keys in Data.db are not checked";
    if (auto e = ReadSstableEncryption(info_path, version, sstable_format)) {
      f = EncryptionFinding(*e, info_path);
    }
    findings.push_back(std::move(f));
    out.text = "Data.db compressed with an unsupported compressor";
    out.unsupported = true;
  } else {
    findings.push_back(Damage(info_path, parsed.status(), " (Data.db cannot be read)"));
    out.text = "CompressionInfo.db is damaged";
  }
  return out;
}

// What the slices of every chunk found, summed in key order: the findings and counts of one
// reader going through all the payloads.
struct ReadTotals {
  std::uint64_t unreadable = 0, via_rows = 0, mismatched = 0, delivered = 0;
  std::optional<Finding> first_damage, hash_mismatch;
  ByteVector first_key, last_key;
  PathTally paths;
};

// One stream of a trie-indexed sstable's keys (StreamTrieIndexKeys' contract), in its steps:
// Partitions.db and its footer opened, Data.db's compression read, then a chunk's worth of
// payloads at a time walked, their keys read in slices and delivered, and what it all found
// concluded into `out`. Used once, in place: the readers point into the files it holds.
class TrieKeyStream {
 public:
  TrieKeyStream(const std::string& prefix, std::string_view version,
                std::string_view sstable_format, const TrieStreamLimits& limits, TrieKeys& out)
      : version_(version),
        sstable_format_(sstable_format),
        prefix_(prefix),
        partitions_path_(prefix + "Partitions.db"),
        data_path_(prefix + "Data.db"),
        info_path_(prefix + "CompressionInfo.db"),
        rows_path_(prefix + "Rows.db"),
        window_bytes_(std::max<std::uint64_t>(limits.window_bytes, 1)),
        chunk_keys_(std::max<std::size_t>(limits.chunk_keys, 1)),
        out_(out) {}
  TrieKeyStream(const TrieKeyStream&) = delete;
  TrieKeyStream& operator=(const TrieKeyStream&) = delete;

  void Run(const ChunkSink& on_chunk) {
    if (Encrypted() || !OpenPartitions()) return;
    data_ = ReadDataCompression(info_path_, version_, sstable_format_, out_.findings);
    encoding_ = CheckedKeyForm(prefix_, version_, sstable_format_);
    MakeSlices();
    batch_.reserve(std::min<std::uint64_t>(chunk_keys_, footer_.key_count));
    // The walk: every node checked, the payloads in key order, a chunk's worth at a time (with
    // their paths when they are checked against the keys).
    PageWindow trie_window(&*partitions_, window_bytes_);
    PartitionsWalker walk(partitions_->bytes(), partitions_path_, footer_, /*check_tree=*/true,
                          /*keep_prefixes=*/encoding_.has_value());
    walk.set_window(&trie_window);
    std::optional<Status> walk_error;  // damage in the trie: no keys
    bool more = true;
    while (more) {
      more = NextBatch(walk, walk_error);
      if (batch_.empty() || walk_error) break;
      Deliver(ReadBatch(), on_chunk);
    }
    trie_window.Flush();
    for (Slice& slice : slices_) {
      slice.data_window.Flush();
      slice.rows_window.Flush();
    }
    if (walk_error) {
      TrieDamaged(*walk_error);
      return;
    }
    Conclude();
  }

 private:
  // DSE's encrypted index files (encryption.h): nothing can be read, which is not damage.
  bool Encrypted() {
    const auto e = ReadSstableEncryption(info_path_, version_, sstable_format_);
    if (!e || !e->indexes_encrypted) return false;
    out_.opened = true;
    out_.findings.push_back(EncryptionFinding(*e, info_path_));
    out_.summary = "Partitions.db is encrypted: no key is read";
    return true;
  }

  // Partitions.db and its footer; false when no key can come (the findings say why).
  bool OpenPartitions() {
    Result<InputFile> partitions = InputFile::Open(partitions_path_);
    if (!partitions.ok()) {
      Finding f;
      f.severity = Severity::kError;
      f.kind = finding_kind::kMissingIndex;
      f.message = "no readable Partitions.db (" + partitions.status().ToString() +
                  "): the sstable's partition index; it cannot be opened, and its keys cannot be "
                  "checked";
      out_.findings.push_back(std::move(f));
      out_.summary = "Partitions.db cannot be read";
      return false;
    }
    out_.opened = true;
    partitions_.emplace(std::move(partitions).value());
    Result<PartitionsFooter> footer = ReadPartitionsFooter(partitions_->bytes(), partitions_path_);
    if (!footer.ok()) {
      TrieDamaged(footer.status());
      return false;
    }
    footer_ = std::move(footer).value();
    return true;
  }

  // One walk checks the whole trie and follows its payloads. Damage in the trie means no keys
  // (as ReadPartitionsDb says): what was read before it is dropped, findings and chunks alike
  // (the caller drops the chunks when trie_read is false).
  void TrieDamaged(const Status& status) {
    out_.findings.clear();
    out_.findings.push_back(Damage(partitions_path_, status, " (no keys are read)"));
    out_.summary = "Partitions.db is damaged: " + status.ToString();
  }

  // One slice per worker the pool may lend (one outside a pool); each gets its own readers.
  void MakeSlices() {
    WorkPool* pool = CurrentWorkPool();
    max_slices_ = std::max<std::size_t>(
        1, std::min<std::size_t>(pool != nullptr ? pool->threads() : 1,
                                 (chunk_keys_ + kMinSliceKeys - 1) / kMinSliceKeys));
    slices_ = std::vector<Slice>(max_slices_);
  }

  // Data.db and Rows.db are opened when a payload first leads there; each slice gets its reader.
  void OpenData() {
    data_tried_ = true;
    Result<InputFile> d = InputFile::Open(data_path_);
    if (!d.ok()) {
      data_error_ = d.status();
    } else if (data_.damaged) {
      data_error_ = Status::CorruptFile(info_path_, "damaged, so Data.db cannot be read");
    } else {
      data_file_.emplace(std::move(d).value());
      data_file_->AdviseSequential();
      for (Slice& slice : slices_) {
        slice.data = std::make_unique<DataReader>(data_file_->bytes(), data_path_,
                                                  data_.info ? &*data_.info : nullptr);
        slice.data_window = PageWindow(&*data_file_, window_bytes_);
        slice.data->set_window(&slice.data_window);
      }
    }
  }
  void OpenRows() {
    rows_tried_ = true;
    Result<InputFile> r = InputFile::Open(rows_path_);
    if (!r.ok()) {
      rows_error_ = r.status();
    } else {
      rows_file_.emplace(std::move(r).value());
      rows_file_->AdviseSequential();
      for (Slice& slice : slices_) {
        slice.rows = std::make_unique<DataReader>(rows_file_->bytes(), rows_path_, nullptr);
        slice.rows_window = PageWindow(&*rows_file_, window_bytes_);
        slice.rows->set_window(&slice.rows_window);
      }
    }
  }

  // The next chunk's payloads into batch_; false when the walk has ended (or found damage,
  // in walk_error).
  bool NextBatch(PartitionsWalker& walk, std::optional<Status>& walk_error) {
    batch_.clear();
    batch_paths_.clear();
    PartitionPayload p;
    while (batch_.size() < chunk_keys_) {
      Result<bool> next = walk.Next(p);
      if (!next.ok()) walk_error = next.status();
      if (!next.ok() || !*next) return false;
      if (p.position < 0 && data_.unsupported) continue;  // said once by the unsupported finding
      if (p.position < 0 && !data_tried_) OpenData();
      if (p.position >= 0 && !rows_tried_) OpenRows();
      const std::int16_t hash = p.hash ? static_cast<std::int16_t>(*p.hash) : std::int16_t{-1};
      const bool keep = encoding_ && batch_paths_.size() + p.prefix.size() <= kMaxBatchPathBytes;
      batch_.push_back({p.node_offset, p.position, hash,
                        keep ? static_cast<std::uint32_t>(p.prefix.size()) : kNoPath,
                        batch_paths_.size()});
      if (keep) batch_paths_.insert(batch_paths_.end(), p.prefix.begin(), p.prefix.end());
    }
    return true;
  }

  // The keys of batch_, in slices read side by side on the pool; returns how many slices.
  std::size_t ReadBatch() {
    const std::size_t n_slices =
        std::min(max_slices_, (batch_.size() + kMinSliceKeys - 1) / kMinSliceKeys);
    if (n_slices <= 1) {
      ReadSlice(slices_[0], 0, batch_.size());
    } else {
      ParallelFor(n_slices, [&](std::size_t s) {
        ReadSlice(slices_[s], batch_.size() * s / n_slices, batch_.size() * (s + 1) / n_slices);
      });
    }
    return n_slices;
  }

  // Reads the keys of batch_[begin, end) into `slice`.
  void ReadSlice(Slice& slice, std::size_t begin, std::size_t end) const {
    slice.keys.Clear();
    slice.positions.clear();
    slice.hashes.clear();
    slice.unreadable = slice.via_rows = slice.mismatched = 0;
    slice.first_damage.reset();
    slice.hash_mismatch.reset();
    slice.paths = PathTally();
    for (std::size_t i = begin; i < end; ++i) {
      const Pending& p = batch_[i];
      const bool in_rows = p.position >= 0;
      DataReader* reader = in_rows ? slice.rows.get() : slice.data.get();
      const std::uint64_t at = in_rows ? static_cast<std::uint64_t>(p.position)
                                       : ~static_cast<std::uint64_t>(p.position);
      // The key as a view into Data.db's bytes at hand where it can be (no copy before the one
      // into the chunk's KeyList), else read into the slice's buffer.
      Result<ByteSpan> key = reader != nullptr
                                 ? reader->PartitionKeyAt(at, slice.key)
                                 : Result<ByteSpan>(in_rows ? *rows_error_ : *data_error_);
      if (!key.ok()) {
        const Status& read = key.status();
        if (!slice.first_damage) {
          Finding f = FindingFromStatus(Severity::kError, finding_kind::kIndex, read);
          f.message = read.ToString() + " (the key of the Partitions.db payload at " +
                      std::to_string(p.node_offset) + ")";
          slice.first_damage = std::move(f);
        }
        ++slice.unreadable;
        continue;
      }
      slice.via_rows += in_rows ? 1 : 0;
      // The hash byte is the low byte of the key's Murmur3 h1 (the filter's hash; both
      // Cassandra and ScyllaDB in the corpus). A mismatch: the payload leads to another
      // partition. The key's hash is kept for the filter's probe too.
      const Murmur3Hash hash = InlineCassandraMurmur3(*key);
      if (p.hash >= 0 && !PayloadHashMatches(static_cast<std::uint8_t>(p.hash), *key, hash)) {
        if (!slice.hash_mismatch) slice.hash_mismatch = HashMismatch(p);
        ++slice.mismatched;
      }
      if (p.path_size != kNoPath) {
        CheckKeyPath(*encoding_, hash, *key, ByteSpan(batch_paths_).subspan(p.path_at, p.path_size),
                     p.node_offset, slice.paths);
      }
      slice.keys.Add(*key);
      slice.positions.push_back(p.position);
      slice.hashes.push_back(hash);
    }
  }

  Finding HashMismatch(const Pending& p) const {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the hash byte %02x of the payload at %llu is not the low byte of the "
                  "Murmur3 hash of the key it leads to",
                  static_cast<unsigned>(p.hash), static_cast<unsigned long long>(p.node_offset));
    Finding f;
    f.severity = Severity::kError;
    f.kind = finding_kind::kIndex;
    f.offset = p.node_offset;
    f.message = partitions_path_ + ": " + text;
    return f;
  }

  // The slices' keys merged in order and given to on_chunk: the findings and counts are those
  // of one reader going through them all. One slice is delivered as it is, without a copy.
  void Deliver(std::size_t n_slices, const ChunkSink& on_chunk) {
    const bool merge = n_slices > 1;
    if (merge) {
      chunk_.Clear();
      chunk_positions_.clear();
      chunk_hashes_.clear();
    }
    for (std::size_t s = 0; s < std::max<std::size_t>(n_slices, 1); ++s) {
      Slice& slice = slices_[s];
      if (!totals_.first_damage && slice.first_damage) {
        totals_.first_damage = std::move(slice.first_damage);
      }
      if (!totals_.hash_mismatch && slice.hash_mismatch) {
        totals_.hash_mismatch = std::move(slice.hash_mismatch);
      }
      totals_.paths.Add(slice.paths);
      totals_.unreadable += slice.unreadable;
      totals_.via_rows += slice.via_rows;
      totals_.mismatched += slice.mismatched;
      if (merge) {
        for (std::size_t i = 0; i < slice.keys.size(); ++i) chunk_.Add(slice.keys[i]);
        chunk_positions_.insert(chunk_positions_.end(), slice.positions.begin(),
                                slice.positions.end());
        chunk_hashes_.insert(chunk_hashes_.end(), slice.hashes.begin(), slice.hashes.end());
      }
    }
    const KeyList& keys = merge ? chunk_ : slices_[0].keys;
    if (keys.empty()) return;
    if (totals_.delivered == 0) {
      const ByteSpan k = keys[0];
      totals_.first_key.assign(k.begin(), k.end());
    }
    const ByteSpan k = keys[keys.size() - 1];
    totals_.last_key.assign(k.begin(), k.end());
    totals_.delivered += keys.size();
    on_chunk(keys, merge ? chunk_positions_ : slices_[0].positions,
             merge ? chunk_hashes_ : slices_[0].hashes);
  }

  // The whole trie was walked: what reading the keys found, and the key-source summary.
  void Conclude() {
    out_.trie_read = true;
    out_.key_count = footer_.key_count;
    const std::uint64_t payloads = footer_.key_count;
    const std::uint64_t unreadable = totals_.unreadable;
    if (totals_.first_damage) {
      totals_.first_damage->message +=
          "; " + std::to_string(unreadable) + " of " + std::to_string(payloads) +
          (unreadable == payloads ? " keys cannot be read"
                                  : " keys cannot be read, the others are checked");
      out_.findings.push_back(std::move(*totals_.first_damage));
    }
    if (totals_.hash_mismatch) {
      totals_.hash_mismatch->message +=
          " (" + std::to_string(totals_.mismatched) + " such payloads)";
      out_.findings.push_back(std::move(*totals_.hash_mismatch));
    }
    auto path_finding = encoding_
                            ? KeyPathFinding(totals_.paths, *encoding_, version_, partitions_path_)
                            : std::nullopt;
    if (path_finding) out_.findings.push_back(std::move(*path_finding));
    // The footer names the first and last key: they must be the first and last read.
    if (unreadable == 0 && totals_.delivered > 0 && totals_.delivered == payloads) {
      const bool first_ok = totals_.first_key == footer_.first_key;
      const bool last_ok = totals_.last_key == footer_.last_key;
      if (!first_ok || !last_ok) {
        Finding f;
        f.severity = Severity::kError;
        f.kind = finding_kind::kIndex;
        f.offset = footer_.trie_end;
        f.message = partitions_path_ + ": the footer's " + (first_ok ? "last" : "first") +
                    " key differs from the key its payload leads to";
        out_.findings.push_back(std::move(f));
      }
    }
    out_.keys_read = totals_.delivered;
    out_.via_rows = totals_.via_rows;
    out_.compression = std::move(data_.info);
    out_.summary = "Partitions.db: " + std::to_string(footer_.key_count) + " keys (" +
                   std::to_string(totals_.via_rows) + " through Rows.db), " + data_.text;
  }

  const std::string_view version_, sstable_format_;
  const std::string prefix_, partitions_path_, data_path_, info_path_, rows_path_;
  const std::uint64_t window_bytes_;
  const std::size_t chunk_keys_;
  TrieKeys& out_;
  // The files outlive the slices' readers and page windows, which point into them.
  std::optional<InputFile> partitions_, data_file_, rows_file_;
  PartitionsFooter footer_;
  DataCompression data_;
  bool data_tried_ = false, rows_tried_ = false;
  std::optional<Status> data_error_, rows_error_;
  std::size_t max_slices_ = 1;
  std::vector<Slice> slices_;
  std::vector<Pending> batch_;
  ByteVector batch_paths_;           // the batch's paths, one after the other
  std::optional<KeyForm> encoding_;  // the paths are checked against it
  KeyList chunk_;                    // the merged chunk, when several slices read it
  std::vector<std::int64_t> chunk_positions_;
  std::vector<Murmur3Hash> chunk_hashes_;
  ReadTotals totals_;
};

void Stream(const std::string& prefix, std::string_view version, std::string_view sstable_format,
            const TrieStreamLimits& limits, const ChunkSink& on_chunk, TrieKeys& out) {
  TrieKeyStream(prefix, version, sstable_format, limits, out).Run(on_chunk);
}

TrieStreamResult Finish(TrieKeys& t, FileReport& report) {
  TrieStreamResult r;
  r.opened = t.opened;
  r.trie_read = t.trie_read;
  r.keys = t.keys_read;
  r.key_count = t.key_count;
  r.through_rows = t.via_rows;
  r.complete =
      t.trie_read && std::none_of(t.findings.begin(), t.findings.end(), [](const Finding& f) {
        return f.kind == finding_kind::kIndex || f.kind == finding_kind::kUnsupported;
      });
  for (Finding& f : t.findings) report.findings.push_back(std::move(f));
  if (t.trie_read) report.Add(Severity::kInfo, kKeySource, t.summary);
  return r;
}

}  // namespace

bool UsesTrieIndex(std::string_view version, std::string_view sstable_format) {
  if (sstable_format == "bti") return true;
  return version == "ms" || version == "mt";
}

TrieStreamResult StreamTrieIndexKeysWithPositions(
    const std::string& prefix, std::string_view version, std::string_view sstable_format,
    const TrieStreamLimits& limits, FileReport& report,
    const std::function<void(const KeyList& chunk, std::span<const std::int64_t> positions)>&
        on_chunk) {
  TrieKeys t;
  Stream(
      prefix, version, sstable_format, limits,
      [&](const KeyList& chunk, std::span<const std::int64_t> positions,
          std::span<const Murmur3Hash>) { on_chunk(chunk, positions); },
      t);
  return Finish(t, report);
}

TrieStreamResult StreamTrieIndexKeysWithHashes(
    const std::string& prefix, std::string_view version, std::string_view sstable_format,
    const TrieStreamLimits& limits, FileReport& report,
    const std::function<void(const KeyList& chunk, std::span<const Murmur3Hash> hashes)>&
        on_chunk) {
  TrieKeys t;
  Stream(
      prefix, version, sstable_format, limits,
      [&](const KeyList& chunk, std::span<const std::int64_t>,
          std::span<const Murmur3Hash> hashes) { on_chunk(chunk, hashes); },
      t);
  return Finish(t, report);
}

TrieStreamResult StreamTrieIndexKeys(const std::string& prefix, std::string_view version,
                                     std::string_view sstable_format,
                                     const TrieStreamLimits& limits, FileReport& report,
                                     const std::function<void(const KeyList& chunk)>& on_chunk) {
  TrieKeys t;
  Stream(
      prefix, version, sstable_format, limits,
      [&](const KeyList& chunk, std::span<const std::int64_t>, std::span<const Murmur3Hash>) {
        on_chunk(chunk);
      },
      t);
  return Finish(t, report);
}

std::optional<IndexDb> LoadTrieIndexKeys(const std::string& prefix, std::string_view version,
                                         std::string_view sstable_format, FileReport& report) {
  IndexDb index;
  TrieStreamResult r = StreamTrieIndexKeysWithPositions(
      prefix, version, sstable_format, TrieStreamLimits{}, report,
      [&](const KeyList& chunk, std::span<const std::int64_t> positions) {
        for (std::size_t i = 0; i < chunk.size(); ++i) index.keys.Add(chunk[i]);
        index.positions.insert(index.positions.end(), positions.begin(), positions.end());
      });
  if (!r.opened) return std::nullopt;
  if (!r.trie_read) return IndexDb();  // damage in the trie: the chunks before it are dropped
  return index;
}

Document DescribeTrieIndex(const std::string& prefix, std::string_view version,
                           std::string_view sstable_format) {
  TrieKeys t;
  // The keys are not kept: only what reading them found.
  Stream(
      prefix, version, sstable_format, TrieStreamLimits{}, [](const KeyList&, auto, auto) {}, t);
  Document doc;
  doc["index"] = "Partitions.db";
  if (t.trie_read) {
    doc["keys"] = t.key_count;
    doc["keys_read"] = t.keys_read;
    doc["through_rows_db"] = t.via_rows;
  }
  if (t.compression) {
    Document c;
    c["compressor"] = std::string(CompressorName(t.compression->compressor));
    c["chunk_length"] = t.compression->chunk_length;
    c["chunks"] = t.compression->chunk_offsets.size();
    c["data_length"] = t.compression->data_length;
    doc["data_compression"] = std::move(c);
  } else if (t.trie_read) {
    doc["data_compression"] = "none";
  }
  doc["summary"] = t.summary;
  if (!t.findings.empty()) doc["problem"] = t.findings.front().message;
  return doc;
}

}  // namespace bloomcodec::cassandra::bti
