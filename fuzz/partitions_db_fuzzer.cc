// Partitions.db of trie-indexed sstables (Cassandra 5.0 BTI, ScyllaDB ms / mt): any bytes give
// the payloads or a Corrupt status naming the file at an offset inside it, with no more payloads
// than the footer's key count. Round trip: the payloads read, written again by the writer from
// the specification (with the same footer keys), read back the same.
#include "cassandra/bti/partitions_db.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::cassandra::bti;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan file(data, size);
  Result<PartitionsDb> db = ReadPartitionsDb(file, "Partitions.db", true);
  if (!db.ok()) {
    fuzz::CheckNamesSource(db.status(), "Partitions.db");
    const std::optional<std::uint64_t> at = db.status().offset();
    FUZZ_CHECK(at.has_value() && *at <= size);
    return 0;
  }
  FUZZ_CHECK(db->payloads.size() == db->key_count);
  FUZZ_CHECK(db->root < db->trie_end && db->trie_end <= size);
  // Without paths: the same payloads.
  Result<PartitionsDb> bare = ReadPartitionsDb(file, "Partitions.db");
  FUZZ_CHECK(bare.ok() && bare->payloads.size() == db->payloads.size());
  // The streaming verify's second walk (no tree check, after a checked one passed): the same
  // payloads in the same order, each node's bytes inside the trie.
  Result<PartitionsFooter> footer = ReadPartitionsFooter(file, "Partitions.db");
  FUZZ_CHECK(footer.ok() && footer->key_count == db->key_count && footer->root == db->root);
  PartitionsWalker walk(file, "Partitions.db", *footer, /*check_tree=*/false);
  const std::uint64_t trie_end = db->trie_end;
  walk.set_touched(
      [trie_end](std::uint64_t b, std::uint64_t e) { FUZZ_CHECK(b < e && e <= trie_end); });
  std::size_t walked = 0;
  for (PartitionPayload p;;) {
    Result<bool> more = walk.Next(p);
    FUZZ_CHECK(more.ok());
    if (!*more) break;
    FUZZ_CHECK(walked < db->payloads.size());
    const PartitionPayload& want = db->payloads[walked++];
    FUZZ_CHECK(p.node_offset == want.node_offset && p.position == want.position &&
               p.hash == want.hash);
  }
  FUZZ_CHECK(walked == db->payloads.size());
  std::vector<PartitionEntry> entries;
  for (const PartitionPayload& p : db->payloads) {
    FUZZ_CHECK(p.node_offset < db->trie_end);
    entries.push_back({p.prefix, p.hash, p.position});
  }
  const TrieWriteOptions::Shape shape =
      size % 3 == 0
          ? TrieWriteOptions::Shape::kSmallest
          : (size % 3 == 1 ? TrieWriteOptions::Shape::kSparse : TrieWriteOptions::Shape::kDense);
  TrieWriteOptions options;
  options.shape = shape;
  Result<ByteVector> written = WritePartitionsDb(entries, db->first_key, db->last_key, options);
  // Only an 8-byte position without a hash byte has no payload encoding.
  if (!written.ok()) return 0;
  Result<PartitionsDb> again = ReadPartitionsDb(*written, "copy", true);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->payloads.size() == entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    FUZZ_CHECK(again->payloads[i].prefix == entries[i].prefix);
    FUZZ_CHECK(again->payloads[i].hash == entries[i].hash);
    FUZZ_CHECK(again->payloads[i].position == entries[i].position);
  }
  return 0;
}
