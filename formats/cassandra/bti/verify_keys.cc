#include "cassandra/bti/verify_keys.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/input_file.h"
#include "cassandra/bti/data_db.h"
#include "cassandra/bti/partitions_db.h"

namespace bloomcodec::cassandra::bti {
namespace {

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// Cassandra's Murmur3 (the filter's, with its sign-extension of tail bytes) or the canonical one,
// in case a writer hashed tail bytes >= 0x80 the canonical way.
bool HashByteMatches(std::uint8_t hash, ByteSpan key) {
  if (static_cast<std::uint8_t>(CassandraMurmur3(key).h1) == hash) return true;
  return static_cast<std::uint8_t>(CanonicalMurmur3(key).h1) == hash;
}

// What reading the keys found, for verify's findings and inspect's line.
struct TrieKeys {
  std::optional<IndexDb> keys;
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

TrieKeys Load(const std::string& prefix, std::string_view version,
              std::string_view sstable_format) {
  TrieKeys out;
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
    return out;
  }
  Result<PartitionsDb> trie = ReadPartitionsDb(partitions->bytes(), partitions_path);
  if (!trie.ok()) {
    out.findings.push_back(Damage(partitions_path, trie.status(), " (no keys are read)"));
    out.summary = "Partitions.db is damaged: " + trie.status().ToString();
    out.keys = IndexDb{};
    return out;
  }
  out.trie_read = true;
  out.key_count = trie->key_count;
  // Data.db, through CompressionInfo.db when there is one; Rows.db for payloads >= 0.
  const std::string data_path = prefix + "Data.db";
  const std::string info_path = prefix + "CompressionInfo.db";
  const std::string rows_path = prefix + "Rows.db";
  std::optional<InputFile> data, rows;
  std::optional<CompressionInfo> info;
  std::optional<Status> data_error, rows_error;
  std::string data_text = "Data.db uncompressed";
  bool needs_data = false, needs_rows = false;
  for (const PartitionPayload& p : trie->payloads)
    (p.position < 0 ? needs_data : needs_rows) = true;
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
  if (needs_data) {
    Result<InputFile> d = InputFile::Open(data_path);
    if (!d.ok()) {
      data_error = d.status();
    } else if (info_damaged) {
      data_error = Status::CorruptFile(info_path, "damaged, so Data.db cannot be read");
    } else {
      data.emplace(std::move(d).value());
    }
  }
  if (needs_rows) {
    Result<InputFile> r = InputFile::Open(rows_path);
    if (!r.ok()) {
      rows_error = r.status();
    } else {
      rows.emplace(std::move(r).value());
    }
  }
  std::unique_ptr<DataReader> data_reader, rows_reader;
  if (data) {
    data_reader = std::make_unique<DataReader>(data->bytes(), data_path, info ? &*info : nullptr);
  }
  if (rows) rows_reader = std::make_unique<DataReader>(rows->bytes(), rows_path, nullptr);

  IndexDb index;
  index.keys.Reserve(trie->payloads.size(), 0);
  std::size_t via_rows = 0, unreadable = 0;
  std::optional<Finding> first_damage, hash_mismatch;
  std::size_t mismatched = 0;
  for (const PartitionPayload& p : trie->payloads) {
    const bool in_rows = p.position >= 0;
    if (!in_rows && data_unsupported) continue;  // said once by the unsupported finding
    DataReader* reader = in_rows ? rows_reader.get() : data_reader.get();
    const std::uint64_t at =
        in_rows ? static_cast<std::uint64_t>(p.position) : ~static_cast<std::uint64_t>(p.position);
    Result<ByteVector> key = reader != nullptr
                                 ? reader->ReadPartitionKey(at)
                                 : Result<ByteVector>(in_rows ? *rows_error : *data_error);
    if (!key.ok()) {
      if (!first_damage) {
        Finding f = FindingFromStatus(Severity::kError, finding_kind::kIndex, key.status());
        f.message = key.status().ToString() + " (the key of the Partitions.db payload at " +
                    std::to_string(p.node_offset) + ")";
        first_damage = std::move(f);
      }
      ++unreadable;
      continue;
    }
    via_rows += in_rows ? 1 : 0;
    // The hash byte is the low byte of the key's Murmur3 h1 (the filter's hash; both Cassandra
    // and ScyllaDB in the corpus). A mismatch: the payload leads to another partition.
    if (p.hash && !HashByteMatches(*p.hash, *key)) {
      if (!hash_mismatch) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "the hash byte %02x of the payload at %llu is not the low byte of the "
                      "Murmur3 hash of the key it leads to",
                      *p.hash, static_cast<unsigned long long>(p.node_offset));
        Finding f;
        f.severity = Severity::kError;
        f.kind = finding_kind::kIndex;
        f.offset = p.node_offset;
        f.message = partitions_path + ": " + text;
        hash_mismatch = std::move(f);
      }
      ++mismatched;
    }
    index.keys.Add(*key);
    index.positions.push_back(p.position);
  }
  if (first_damage) {
    first_damage->message +=
        "; " + std::to_string(unreadable) + " of " + std::to_string(trie->payloads.size()) +
        (unreadable == trie->payloads.size() ? " keys cannot be read"
                                             : " keys cannot be read, the others are checked");
    out.findings.push_back(std::move(*first_damage));
  }
  if (hash_mismatch) {
    hash_mismatch->message += " (" + std::to_string(mismatched) + " such payloads)";
    out.findings.push_back(std::move(*hash_mismatch));
  }
  // The footer names the first and last key: they must be the first and last read.
  if (unreadable == 0 && !index.keys.empty() && index.keys.size() == trie->payloads.size()) {
    const ByteSpan first = index.keys[0], last = index.keys[index.keys.size() - 1];
    const bool first_ok = ByteVector(first.begin(), first.end()) == trie->first_key;
    const bool last_ok = ByteVector(last.begin(), last.end()) == trie->last_key;
    if (!first_ok || !last_ok) {
      Finding f;
      f.severity = Severity::kError;
      f.kind = finding_kind::kIndex;
      f.offset = trie->trie_end;
      f.message = partitions_path + ": the footer's " + (first_ok ? "last" : "first") +
                  " key differs from the key its payload leads to";
      out.findings.push_back(std::move(f));
    }
  }
  out.keys_read = index.keys.size();
  out.via_rows = via_rows;
  out.compression = info;
  out.summary = "Partitions.db: " + std::to_string(trie->key_count) + " keys (" +
                std::to_string(via_rows) + " through Rows.db), " + data_text;
  out.keys = std::move(index);
  return out;
}

}  // namespace

bool UsesTrieIndex(std::string_view version, std::string_view sstable_format) {
  if (sstable_format == "bti") return true;
  return version == "ms" || version == "mt";
}

std::optional<IndexDb> LoadTrieIndexKeys(const std::string& prefix, std::string_view version,
                                         std::string_view sstable_format, FileReport& report) {
  TrieKeys t = Load(prefix, version, sstable_format);
  for (Finding& f : t.findings) report.findings.push_back(std::move(f));
  if (t.trie_read) report.Add(Severity::kInfo, kKeySource, t.summary);
  return std::move(t.keys);
}

Document DescribeTrieIndex(const std::string& prefix, std::string_view version,
                           std::string_view sstable_format) {
  TrieKeys t = Load(prefix, version, sstable_format);
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
