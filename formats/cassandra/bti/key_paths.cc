#include "cassandra/bti/key_paths.h"

#include "bloomcodec/input_file.h"
#include "cassandra/statistics_db.h"

namespace bloomcodec::cassandra::bti {
namespace {

constexpr std::string_view kMurmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
constexpr std::string_view kByteOrderedPartitioner =
    "org.apache.cassandra.dht.ByteOrderedPartitioner";

// The encoding a mismatched path is tried in as well, to tell a writer that encodes the keys
// otherwise from damage: LEGACY for the OSS ones (which agree on these keys), OSS41 for LEGACY.
KeyForm OtherEncoding(const KeyForm& form) {
  KeyForm other = form;
  other.encoding =
      form.encoding == KeyEncoding::kLegacy ? KeyEncoding::kOss41 : KeyEncoding::kLegacy;
  return other;
}

}  // namespace

void PathTally::Add(const PathTally& later) {
  if (mismatched == 0 && later.mismatched > 0) first_node = later.first_node;
  checked += later.checked;
  mismatched += later.mismatched;
  other_fits += later.other_fits;
}

std::optional<KeyForm> CheckedKeyForm(const std::string& prefix, std::string_view version,
                                      std::string_view sstable_format) {
  const std::optional<KeyEncoding> encoding = TrieKeyEncoding(version, sstable_format);
  if (!encoding) return std::nullopt;
  const std::string path = prefix + "Statistics.db";
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return std::nullopt;
  Result<ValidationMetadata> v = ReadValidationMetadata(in->bytes(), path, version, sstable_format);
  if (!v.ok()) return std::nullopt;
  KeyForm form;
  form.encoding = *encoding;
  if (v->partitioner == kMurmur3Partitioner) {
    form.token = TokenKind::kMurmur3;
  } else if (v->partitioner == kByteOrderedPartitioner) {
    form.token = TokenKind::kByteOrdered;
  } else {
    return std::nullopt;
  }
  return form;
}

void CheckKeyPath(const KeyForm& form, const Murmur3Hash& hash, ByteSpan key, ByteSpan path,
                  std::uint64_t node_offset, PathTally& tally) {
  ++tally.checked;
  const std::int64_t token = Murmur3Token(hash, key.size());
  if (IsKeyFormPrefix(form, token, key, path)) return;
  if (tally.mismatched++ == 0) tally.first_node = node_offset;
  if (IsKeyFormPrefix(OtherEncoding(form), token, key, path)) ++tally.other_fits;
}

bool PayloadHashMatches(std::uint8_t hash, ByteSpan key, const Murmur3Hash& cassandra) {
  if (static_cast<std::uint8_t>(cassandra.h1) == hash) return true;
  return static_cast<std::uint8_t>(CanonicalMurmur3(key).h1) == hash;
}

std::optional<Finding> KeyPathFinding(const PathTally& tally, const KeyForm& form,
                                      std::string_view version,
                                      const std::string& partitions_path) {
  if (tally.mismatched == 0) return std::nullopt;
  const std::string name = std::string(KeyEncodingName(form.encoding)) +
                           " byte-comparable form (what version " + std::string(version) +
                           " writes)";
  Finding f;
  const std::string other(KeyEncodingName(OtherEncoding(form).encoding));
  // Every mismatch fits the other encoding (a writer that encodes this version's keys as the
  // other one does), or no path fits at all (an encoding we do not know): not damage.
  const bool other_writer = tally.other_fits == tally.mismatched;
  if (other_writer || (tally.mismatched == tally.checked && tally.checked >= 2)) {
    f.severity = Severity::kWarning;
    f.kind = finding_kind::kUnsupported;
    f.message = partitions_path + ": " + std::to_string(tally.mismatched) + " of the " +
                std::to_string(tally.checked) + " keys' trie paths are not a prefix of the key's " +
                name +
                (other_writer ? "; each of them fits the " + other + " form instead"
                              : "; none fits the " + other + " form either") +
                ": a writer that encodes the keys otherwise, which we do not know; the paths are "
                "not judged (the writer's own sstableverify can judge them)";
    return f;
  }
  f.severity = Severity::kError;
  f.kind = finding_kind::kIndex;
  f.offset = tally.first_node;
  f.message = partitions_path + ": the trie's path to the payload at " +
              std::to_string(tally.first_node) + " is not a prefix of the " + name +
              " of the key the payload leads to, so a lookup of that key cannot reach it (" +
              std::to_string(tally.mismatched) + " of " + std::to_string(tally.checked) + " keys)";
  return f;
}

}  // namespace bloomcodec::cassandra::bti
