// Cassandra Index.db (u16 BE key length, key, i64 BE position; no header): any bytes give the
// keys or a Corrupt status naming the file at an offset inside it; the entries kept before a
// damaged one are a prefix of the file. Round trip (raw key form): the keys and positions read,
// written again, are the input byte for byte. The 1.2 and 3.0+ entry forms (with a promoted index
// skipped by its size) give their keys or a Corrupt status at an offset inside the file too.
// Before e, the partitioner told from the data (DetectIndexKeyFormBeforeE) is one of the forms.
// Streaming (ScanIndexEntries in windows of any size, with the keys in place) gives the same keys
// and the same Status as reading the whole file, and each key's hash when asked.
#include "cassandra/index_db.h"
#include "fuzz_support.h"

using namespace bloomcodec;
using namespace bloomcodec::cassandra;

namespace {

// The file scanned in windows of `step` bytes, keys in place: what ReadIndexDbInto gives.
void CheckStreamed(ByteSpan file, IndexKeyForm form, IndexEntryForm entries, std::uint64_t step,
                   const IndexDb& whole, const Status& whole_status) {
  IndexScan scan;
  std::vector<ByteSpan> keys;
  std::vector<Murmur3Hash> hashes;
  Status s;
  while (scan.offset < file.size() && s.ok()) {
    const std::uint64_t before = scan.offset;
    s = ScanIndexEntries(file, "Index.db", form, entries, scan.offset + step, scan, &keys, &hashes);
    FUZZ_CHECK(!s.ok() || scan.offset > before);
    for (const ByteSpan& k : keys) {
      FUZZ_CHECK(k.data() >= file.data() && k.data() + k.size() <= file.data() + file.size());
    }
  }
  FUZZ_CHECK(s.ToString() == whole_status.ToString());
  FUZZ_CHECK(keys.size() == whole.keys.size() && scan.entries == keys.size());
  FUZZ_CHECK(hashes.size() == keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FUZZ_CHECK(fuzz::SameBytes(keys[i], whole.keys[i]));
    const Murmur3Hash h = CassandraMurmur3(keys[i]);
    FUZZ_CHECK(hashes[i].h0 == h.h0 && hashes[i].h1 == h.h1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan file(data, size);
  // Telling the partitioner from the data reads only inside the file and gives one of the two
  // forms; the version decides alone from e on.
  const IndexKeyForm detected = DetectIndexKeyFormBeforeE(file);
  FUZZ_CHECK(detected == IndexKeyForm::kRaw || detected == IndexKeyForm::kRandomPartitionerEncoded);
  FUZZ_CHECK(IndexKeyFormFor("b", file) == detected);
  FUZZ_CHECK(IndexKeyFormFor("hc", file) == IndexKeyForm::kRaw);
  for (IndexKeyForm form : {IndexKeyForm::kRaw, IndexKeyForm::kRandomPartitionerEncoded}) {
    IndexDb partial;
    const Status s = ReadIndexDbInto(file, "Index.db", form, partial);
    CheckStreamed(file, form, IndexEntryForm::kPositionOnly, size > 0 ? 1 + data[0] % 64 : 1,
                  partial, s);
    FUZZ_CHECK(partial.keys.size() == partial.positions.size());
    FUZZ_CHECK(partial.keys.total_bytes() <= size);
    Result<IndexDb> whole = ReadIndexDb(file, "Index.db", form);
    FUZZ_CHECK(whole.ok() == s.ok());
    if (!s.ok()) {
      fuzz::CheckNamesSource(s, "Index.db");
      std::optional<std::uint64_t> at = s.offset();
      FUZZ_CHECK(at.has_value() && *at <= size);
      continue;
    }
    FUZZ_CHECK(fuzz::SameKeys(whole->keys, partial.keys));
    if (form != IndexKeyForm::kRaw) continue;
    Result<ByteVector> written = WriteIndexDb(whole->keys, whole->positions);
    FUZZ_CHECK(written.ok());
    FUZZ_CHECK(fuzz::SameBytes(*written, file));
  }
  for (IndexEntryForm entries :
       {IndexEntryForm::kLongPositionAndPromoted, IndexEntryForm::kVIntPositionAndPromoted}) {
    IndexDb murmur3;
    const Status s = ReadIndexDbInto(file, "Index.db", IndexKeyForm::kRaw, entries, murmur3);
    CheckStreamed(file, IndexKeyForm::kRaw, entries, size > 1 ? 1 + data[1] % 200 : 1, murmur3, s);
    FUZZ_CHECK(murmur3.keys.size() == murmur3.positions.size());
    FUZZ_CHECK(murmur3.keys.total_bytes() <= size);
    if (!s.ok()) {
      fuzz::CheckNamesSource(s, "Index.db");
      const std::optional<std::uint64_t> at = s.offset();
      FUZZ_CHECK(at.has_value() && *at <= size);
      continue;
    }
    // Written again without promoted indexes, the keys and positions read back the same.
    Result<ByteVector> written = WriteIndexDb(murmur3.keys, murmur3.positions, entries);
    FUZZ_CHECK(written.ok());
    IndexDb reread;
    FUZZ_CHECK(ReadIndexDbInto(*written, "copy", IndexKeyForm::kRaw, entries, reread).ok());
    FUZZ_CHECK(fuzz::SameKeys(reread.keys, murmur3.keys) && reread.positions == murmur3.positions);
  }
  return 0;
}
