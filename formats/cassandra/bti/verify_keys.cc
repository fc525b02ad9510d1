#include "cassandra/bti/verify_keys.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/page_window.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/murmur3_inline.h"
#include "codec/parallel.h"

namespace bloomcodec::cassandra::bti {
namespace {

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// Cassandra's Murmur3 (the filter's, with its sign-extension of tail bytes; `cassandra` is the
// key's) or the canonical one, in case a writer hashed tail bytes >= 0x80 the canonical way.
bool HashByteMatches(std::uint8_t hash, ByteSpan key, const Murmur3Hash& cassandra) {
  if (static_cast<std::uint8_t>(cassandra.h1) == hash) return true;
  return static_cast<std::uint8_t>(CanonicalMurmur3(key).h1) == hash;
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
  std::int16_t hash;  // -1: none
};

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
};

// Fewer payloads than this per slice are read by one reader (a slice decompresses the chunks
// at its edges again).
constexpr std::size_t kMinSliceKeys = 1024;

void Stream(const std::string& prefix, std::string_view version, std::string_view sstable_format,
            const TrieStreamLimits& limits, const ChunkSink& on_chunk, TrieKeys& out) {
  const std::string partitions_path = prefix + "Partitions.db";
  Result<InputFile> partitions = InputFile::Open(partitions_path);
  if (!partitions.ok()) {
    Finding f;
    f.severity = Severity::kError;
    f.kind = finding_kind::kMissingIndex;
    f.message = "no readable Partitions.db (" + partitions.status().ToString() +
                "): the sstable's partition index; it cannot be opened, and its keys cannot be "
                "checked";
    out.findings.push_back(std::move(f));
    out.summary = "Partitions.db cannot be read";
    return;
  }
  out.opened = true;
  const ByteSpan partitions_bytes = partitions->bytes();
  const std::uint64_t window_bytes = std::max<std::uint64_t>(limits.window_bytes, 1);
  // One walk checks the whole trie and follows its payloads. Damage in the trie means no keys
  // (as ReadPartitionsDb says): what was read before it is dropped, findings and chunks alike
  // (the caller drops the chunks when trie_read is false).
  Result<PartitionsFooter> footer = ReadPartitionsFooter(partitions_bytes, partitions_path);
  const auto trie_damaged = [&](const Status& status) {
    out.findings.clear();
    out.findings.push_back(Damage(partitions_path, status, " (no keys are read)"));
    out.summary = "Partitions.db is damaged: " + status.ToString();
  };
  if (!footer.ok()) {
    trie_damaged(footer.status());
    return;
  }
  // Data.db, through CompressionInfo.db when there is one; Rows.db for payloads >= 0.
  const std::string data_path = prefix + "Data.db";
  const std::string info_path = prefix + "CompressionInfo.db";
  const std::string rows_path = prefix + "Rows.db";
  std::optional<InputFile> data, rows;
  std::optional<CompressionInfo> info;
  std::optional<Status> data_error, rows_error;
  std::string data_text = "Data.db uncompressed";
  bool info_damaged = false, data_unsupported = false;
  if (Exists(info_path)) {
    Result<InputFile> ci = InputFile::Open(info_path);
    Result<CompressionInfo> parsed =
        ci.ok() ? ReadCompressionInfo(ci->bytes(), info_path,
                                      HasMaxCompressedLength(version, sstable_format))
                : Result<CompressionInfo>(ci.status());
    if (!parsed.ok()) {
      if (parsed.status().code() == StatusCode::kUnsupported) {
        // Not damage: a compressor we do not read; the keys in Data.db go unchecked.
        Finding f;
        f.severity = Severity::kWarning;
        f.kind = finding_kind::kUnsupported;
        f.message = parsed.status().ToString() + ": the keys in Data.db are not checked";
        out.findings.push_back(std::move(f));
        data_text = "Data.db compressed with an unsupported compressor";
        data_unsupported = true;
      } else {
        out.findings.push_back(Damage(info_path, parsed.status(), " (Data.db cannot be read)"));
        data_text = "CompressionInfo.db is damaged";
      }
      info_damaged = true;
    } else {
      info = std::move(parsed).value();
      data_text = "Data.db " + std::string(CompressorName(info->compressor)) + "-compressed (" +
                  std::to_string(info->chunk_offsets.size()) +
                  (info->chunk_offsets.size() == 1 ? " chunk" : " chunks") + " of " +
                  std::to_string(info->chunk_length) + " bytes)";
    }
  }
  // One slice per worker the pool may lend (one outside a pool); each its own readers.
  WorkPool* pool = CurrentWorkPool();
  const std::size_t chunk_keys = std::max<std::size_t>(limits.chunk_keys, 1);
  const std::size_t max_slices = std::max<std::size_t>(
      1, std::min<std::size_t>(pool != nullptr ? pool->threads() : 1,
                               (chunk_keys + kMinSliceKeys - 1) / kMinSliceKeys));
  std::vector<Slice> slices(max_slices);
  // Data.db and Rows.db are opened when a payload first leads there; each slice gets its reader.
  bool data_tried = false, rows_tried = false;
  const auto open_data = [&] {
    data_tried = true;
    Result<InputFile> d = InputFile::Open(data_path);
    if (!d.ok()) {
      data_error = d.status();
    } else if (info_damaged) {
      data_error = Status::CorruptFile(info_path, "damaged, so Data.db cannot be read");
    } else {
      data.emplace(std::move(d).value());
      data->AdviseSequential();
      for (Slice& slice : slices) {
        slice.data =
            std::make_unique<DataReader>(data->bytes(), data_path, info ? &*info : nullptr);
        slice.data_window = PageWindow(&*data, window_bytes);
        slice.data->set_window(&slice.data_window);
      }
    }
  };
  const auto open_rows = [&] {
    rows_tried = true;
    Result<InputFile> r = InputFile::Open(rows_path);
    if (!r.ok()) {
      rows_error = r.status();
    } else {
      rows.emplace(std::move(r).value());
      rows->AdviseSequential();
      for (Slice& slice : slices) {
        slice.rows = std::make_unique<DataReader>(rows->bytes(), rows_path, nullptr);
        slice.rows_window = PageWindow(&*rows, window_bytes);
        slice.rows->set_window(&slice.rows_window);
      }
    }
  };
  std::vector<Pending> batch;
  batch.reserve(std::min<std::uint64_t>(chunk_keys, footer->key_count));

  // Reads the keys of batch[begin, end) into `slice`.
  auto read_slice = [&](Slice& slice, std::size_t begin, std::size_t end) {
    slice.keys.Clear();
    slice.positions.clear();
    slice.hashes.clear();
    slice.unreadable = slice.via_rows = slice.mismatched = 0;
    slice.first_damage.reset();
    slice.hash_mismatch.reset();
    for (std::size_t i = begin; i < end; ++i) {
      const Pending& p = batch[i];
      const bool in_rows = p.position >= 0;
      DataReader* reader = in_rows ? slice.rows.get() : slice.data.get();
      const std::uint64_t at = in_rows ? static_cast<std::uint64_t>(p.position)
                                       : ~static_cast<std::uint64_t>(p.position);
      // The key as a view into Data.db's bytes at hand where it can be (no copy before the one
      // into the chunk's KeyList), else read into the slice's buffer.
      Result<ByteSpan> key = reader != nullptr
                                 ? reader->PartitionKeyAt(at, slice.key)
                                 : Result<ByteSpan>(in_rows ? *rows_error : *data_error);
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
      // partition.
      // The key's hash is kept for the filter's probe too.
      const Murmur3Hash hash = InlineCassandraMurmur3(*key);
      if (p.hash >= 0 && !HashByteMatches(static_cast<std::uint8_t>(p.hash), *key, hash)) {
        if (!slice.hash_mismatch) {
          char text[160];
          std::snprintf(text, sizeof text,
                        "the hash byte %02x of the payload at %llu is not the low byte of the "
                        "Murmur3 hash of the key it leads to",
                        static_cast<unsigned>(p.hash),
                        static_cast<unsigned long long>(p.node_offset));
          Finding f;
          f.severity = Severity::kError;
          f.kind = finding_kind::kIndex;
          f.offset = p.node_offset;
          f.message = partitions_path + ": " + text;
          slice.hash_mismatch = std::move(f);
        }
        ++slice.mismatched;
      }
      slice.keys.Add(*key);
      slice.positions.push_back(p.position);
      slice.hashes.push_back(hash);
    }
  };

  // The walk: every node checked, the payloads in key order, a chunk's worth at a time.
  PageWindow trie_window(&*partitions, window_bytes);
  PartitionsWalker walk(partitions_bytes, partitions_path, *footer, /*check_tree=*/true);
  walk.set_window(&trie_window);
  KeyList chunk;
  std::vector<std::int64_t> chunk_positions;
  std::vector<Murmur3Hash> chunk_hashes;
  std::uint64_t unreadable = 0, via_rows = 0, mismatched = 0, delivered = 0;
  std::optional<Finding> first_damage, hash_mismatch;
  std::optional<Status> walk_error;  // damage in the trie: no keys
  ByteVector first_key, last_key;
  PartitionPayload p;
  bool more = true;
  while (more) {
    batch.clear();
    while (batch.size() < chunk_keys) {
      Result<bool> next = walk.Next(p);
      if (!next.ok()) walk_error = next.status();
      if (!next.ok() || !*next) {
        more = false;
        break;
      }
      if (p.position < 0 && data_unsupported) continue;  // said once by the unsupported finding
      if (p.position < 0 && !data_tried) open_data();
      if (p.position >= 0 && !rows_tried) open_rows();
      const std::int16_t hash = p.hash ? static_cast<std::int16_t>(*p.hash) : std::int16_t{-1};
      batch.push_back({p.node_offset, p.position, hash});
    }
    if (batch.empty() || walk_error) break;
    const std::size_t n_slices =
        std::min(max_slices, (batch.size() + kMinSliceKeys - 1) / kMinSliceKeys);
    auto slice_range = [&](std::size_t s) {
      return std::pair<std::size_t, std::size_t>(batch.size() * s / n_slices,
                                                 batch.size() * (s + 1) / n_slices);
    };
    if (n_slices <= 1) {
      read_slice(slices[0], 0, batch.size());
    } else {
      ParallelFor(n_slices, [&](std::size_t s) {
        const auto [b, e] = slice_range(s);
        read_slice(slices[s], b, e);
      });
    }
    // Merged in order: the findings and counts are those of one reader going through them all.
    const KeyList* deliver = &slices[0].keys;
    const std::vector<std::int64_t>* deliver_positions = &slices[0].positions;
    const std::vector<Murmur3Hash>* deliver_hashes = &slices[0].hashes;
    if (n_slices > 1) {
      chunk.Clear();
      chunk_positions.clear();
      chunk_hashes.clear();
    }
    for (std::size_t s = 0; s < std::max<std::size_t>(n_slices, 1); ++s) {
      Slice& slice = slices[s];
      if (!first_damage && slice.first_damage) first_damage = std::move(slice.first_damage);
      if (!hash_mismatch && slice.hash_mismatch) hash_mismatch = std::move(slice.hash_mismatch);
      unreadable += slice.unreadable;
      via_rows += slice.via_rows;
      mismatched += slice.mismatched;
      if (n_slices > 1) {
        for (std::size_t i = 0; i < slice.keys.size(); ++i) chunk.Add(slice.keys[i]);
        chunk_positions.insert(chunk_positions.end(), slice.positions.begin(),
                               slice.positions.end());
        chunk_hashes.insert(chunk_hashes.end(), slice.hashes.begin(), slice.hashes.end());
      }
    }
    if (n_slices > 1) {
      deliver = &chunk;
      deliver_positions = &chunk_positions;
      deliver_hashes = &chunk_hashes;
    }
    if (!deliver->empty()) {
      if (delivered == 0) {
        const ByteSpan k = (*deliver)[0];
        first_key.assign(k.begin(), k.end());
      }
      const ByteSpan k = (*deliver)[deliver->size() - 1];
      last_key.assign(k.begin(), k.end());
      delivered += deliver->size();
      on_chunk(*deliver, *deliver_positions, *deliver_hashes);
    }
  }
  trie_window.Flush();
  for (Slice& slice : slices) {
    slice.data_window.Flush();
    slice.rows_window.Flush();
  }
  if (walk_error) {
    trie_damaged(*walk_error);
    return;
  }
  out.trie_read = true;
  out.key_count = footer->key_count;
  const std::uint64_t payloads = footer->key_count;
  if (first_damage) {
    first_damage->message +=
        "; " + std::to_string(unreadable) + " of " + std::to_string(payloads) +
        (unreadable == payloads ? " keys cannot be read"
                                : " keys cannot be read, the others are checked");
    out.findings.push_back(std::move(*first_damage));
  }
  if (hash_mismatch) {
    hash_mismatch->message += " (" + std::to_string(mismatched) + " such payloads)";
    out.findings.push_back(std::move(*hash_mismatch));
  }
  // The footer names the first and last key: they must be the first and last read.
  if (unreadable == 0 && delivered > 0 && delivered == payloads) {
    const bool first_ok = first_key == footer->first_key;
    const bool last_ok = last_key == footer->last_key;
    if (!first_ok || !last_ok) {
      Finding f;
      f.severity = Severity::kError;
      f.kind = finding_kind::kIndex;
      f.offset = footer->trie_end;
      f.message = partitions_path + ": the footer's " + (first_ok ? "last" : "first") +
                  " key differs from the key its payload leads to";
      out.findings.push_back(std::move(f));
    }
  }
  out.keys_read = delivered;
  out.via_rows = via_rows;
  out.compression = std::move(info);
  out.summary = "Partitions.db: " + std::to_string(footer->key_count) + " keys (" +
                std::to_string(via_rows) + " through Rows.db), " + data_text;
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
