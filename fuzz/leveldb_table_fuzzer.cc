// Whole LevelDB tables: footer, block handles, varints, block trailers, Snappy, index, metaindex
// and filter block. Open either fails with a status naming the file or gives a reader on which
// walking every entry, Verify and lookups never fail unsafely. Round trip: the entries of a
// table that verifies, written again by TableWriter, read back as the same entries.
// The input length's parity decides whether CRCs are checked, so both paths are fuzzed.
#include <vector>

#include "fuzz_support.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

using namespace bloomcodec;
using namespace bloomcodec::leveldb;
using namespace bloomcodec::blocktable;

namespace {

constexpr std::size_t kMaxEntries = 20000;
constexpr std::size_t kMaxEntryBytes = 8u << 20;

struct Entries {
  KeyList keys;
  KeyList values;
  bool complete = true;  // false when the walk failed or was cut at the bounds above
};

Entries Collect(const TableReader& table) {
  Entries e;
  std::size_t bytes = 0;
  Status s = table.ForEachEntry([&](ByteSpan key, ByteSpan value, const BlockHandle&) {
    bytes += key.size() + value.size();
    if (e.keys.size() >= kMaxEntries || bytes > kMaxEntryBytes) {
      e.complete = false;
      return Status::Unsupported("fuzzer bound");
    }
    e.keys.Add(key);
    e.values.Add(value);
    return Status();
  });
  if (!s.ok()) {
    e.complete = false;
    if (s.code() != StatusCode::kUnsupported)
      fuzz::CheckNamesSourceAndOffset(s, table.source(), table.file().size());
  }
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan file(data, size);
  TableOpenOptions options;
  options.verify_checksums = (size & 1) != 0;
  Result<TableReader> opened = TableReader::Open(file, "000005.ldb", options);
  if (!opened.ok()) {
    fuzz::CheckNamesSourceAndOffset(opened.status(), "000005.ldb", size);
    return 0;
  }
  const TableReader& table = *opened;

  const KeyList probes = fuzz::ProbeKeys(file);
  std::vector<std::uint8_t> answers(probes.size());
  const Status batch = table.MayContainBatch(probes, answers);
  fuzz::CheckNamesSourceAndOffset(batch, "000005.ldb", size);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    Result<bool> single = table.MayContain(probes[i]);
    fuzz::CheckNamesSourceAndOffset(single.status(), "000005.ldb", size);
    if (batch.ok() && single.ok()) FUZZ_CHECK(answers[i] == *single);
  }

  Entries entries = Collect(table);
  for (std::size_t i = 0; i < entries.keys.size() && i < 8; ++i) {
    // A stored key (its user part in a database table) is never a false negative of a table
    // that verifies; here only the call's safety is checked, Verify checks the answer.
    Result<bool> r = table.MayContain(
        table.key_kind() == KeyKind::kUser ? UserKeyOf(entries.keys[i]) : entries.keys[i]);
    fuzz::CheckNamesSourceAndOffset(r.status(), "000005.ldb", size);
  }
  Result<std::uint64_t> verified = table.Verify();
  if (!verified.ok()) {
    fuzz::CheckNamesSourceAndOffset(verified.status(), "000005.ldb", size);
    return 0;
  }
  if (!entries.complete) return 0;
  FUZZ_CHECK(*verified == entries.keys.size());

  TableWriteOptions write;
  write.key_kind = table.key_kind();
  write.filter = BloomPolicy::Current(10);
  // Mojang's zlib types on some inputs (chosen by size, deterministically), so that the rewrite
  // below reads zlib and raw deflate blocks back too.
  const blocktable::BlockCompression kinds[] = {blocktable::BlockCompression::kNone,
                                                blocktable::BlockCompression::kMojangZlib,
                                                blocktable::BlockCompression::kMojangRawDeflate};
  write.compression = kinds[size % 3];
  TableWriter writer(write);
  for (std::size_t i = 0; i < entries.keys.size(); ++i) {
    FUZZ_CHECK(writer.Add(entries.keys[i], entries.values[i]).ok());
  }
  Result<ByteVector> rewritten = writer.Finish();
  FUZZ_CHECK(rewritten.ok());
  TableOpenOptions reopen;
  reopen.verify_checksums = true;
  reopen.key_kind = table.key_kind();
  Result<TableReader> back = TableReader::Open(*rewritten, "rewritten.ldb", reopen);
  FUZZ_CHECK(back.ok());
  Entries again = Collect(*back);
  FUZZ_CHECK(again.complete);
  FUZZ_CHECK(fuzz::SameKeys(again.keys, entries.keys));
  FUZZ_CHECK(fuzz::SameKeys(again.values, entries.values));
  Result<std::uint64_t> reverified = back->Verify();
  FUZZ_CHECK(reverified.ok() && *reverified == entries.keys.size());
  return 0;
}
