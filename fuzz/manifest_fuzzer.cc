// MANIFEST files of LevelDB, RocksDB and Pebble: log records (blocks, fragments, checksums,
// recyclable and WAL-sync headers) and version edits (tags, varints, length-prefixed keys,
// RocksDB's and Pebble's custom fields, Pebble's backing tables and blob files), replayed into
// live tables; and Pebble's other database files (OPTIONS text, marker file names). The first
// byte picks what the rest is: 0 LevelDB, 1 RocksDB, 2 Pebble MANIFEST, 3 Pebble OPTIONS and
// marker names. Whatever the bytes, the readers return (never fail, never crash); every finding's
// offset lies inside the file; every live table has internal keys and a level in range; a
// Pebble replay that is not damaged leaves no virtual table without its backing and no blob
// reference without its blob file, and survives repair's edit re-recording every live file
// (lsmrepair/pebble_transaction.h). CRCs are recomputed by the fuzzer-friendly path too (the
// input is also read with its records' checksums made valid, so the edit decoder is reached).
#include <cstdint>
#include <map>
#include <vector>

#include "blocktable/crc32c.h"
#include "fuzz_support.h"
#include "lsmrepair/manifest_writer.h"
#include "lsmrepair/pebble_transaction.h"
#include "manifest/manifest.h"
#include "pebble/database_internal.h"

using namespace bloomcodec;
using namespace bloomcodec::manifest;

namespace {

// A Pebble replay that went through: its virtual tables' backings and blob references resolve.
void CheckPebble(const Manifest& m) {
  if (m.damaged || m.column_families.empty()) return;
  std::uint64_t virtual_tables = 0, uses = 0;
  for (const TableMeta& t : m.column_families[0].tables) {
    if (t.is_virtual) {
      ++virtual_tables;
      bool found = false;
      for (const BackingTable& b : m.backings) found = found || b.number == t.backing;
      FUZZ_CHECK(found);
    }
    for (const BlobReference& r : t.blob_references) {
      bool found = false;
      for (const BlobFile& b : m.blob_files) found = found || b.id == r.file_id;
      FUZZ_CHECK(found);
    }
  }
  for (const BackingTable& b : m.backings) uses += b.virtual_tables;
  FUZZ_CHECK(uses == virtual_tables);
}

// What a table recorded again by repair's edit must read back as.
bool SameTable(const TableMeta& a, const TableMeta& b) {
  auto refs = [](const TableMeta& t) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (const BlobReference& r : t.blob_references) out.emplace_back(r.file_id, r.value_size);
    return out;
  };
  return a.level == b.level && a.size == b.size && a.smallest == b.smallest &&
         a.largest == b.largest && a.is_virtual == b.is_virtual && a.backing == b.backing &&
         a.synthetic_prefix == b.synthetic_prefix && a.synthetic_suffix == b.synthetic_suffix &&
         a.creation_time == b.creation_time && refs(a) == refs(b) &&
         a.marked_for_compaction == b.marked_for_compaction &&
         a.point_keys.has_value() == b.point_keys.has_value() &&
         a.range_keys.has_value() == b.range_keys.has_value();
}

// Pebble's repair edit (lsmrepair/pebble_transaction.h): every live file recorded again under a
// new number (a backing with its virtual tables) after the old records replays without damage
// to the same tables, every field but the numbers, a physical table's size and the backing kept.
void CheckPebbleRepairEdit(ByteSpan file, const Manifest& m) {
  if (m.damaged || m.column_families.size() != 1 || m.open_atomic_group) return;
  const LogReadResult log = ReadLogRecords(file, Flavor::kPebble);
  if (log.damaged) return;
  std::map<std::uint64_t, lsmrepair::PebbleFileReplacement> files;
  for (const TableMeta& t : m.column_families[0].tables) {
    lsmrepair::PebbleFileReplacement& r = files[t.is_virtual ? t.backing : t.number];
    if (!r.tables.empty() && (!r.is_backing || !t.is_virtual)) return;  // a number used twice
    r.is_backing = t.is_virtual;
    r.old_number = t.is_virtual ? t.backing : t.number;
    r.tables.push_back(t);
  }
  std::uint64_t next = std::uint64_t{1} << 40;
  std::map<std::uint64_t, TableMeta> want;  // by new table number
  for (auto& [number, r] : files) {
    r.new_number = next++;
    r.new_size = r.tables[0].size + 7;
    for (const TableMeta& t : r.tables) {
      r.table_numbers.push_back(r.is_backing ? next++ : r.new_number);
      TableMeta w = t;
      if (r.is_backing) {
        w.backing = r.new_number;
      } else {
        w.size = r.new_size;
      }
      want[r.table_numbers.back()] = w;
    }
  }
  std::vector<lsmrepair::PebbleFileReplacement> all;
  for (auto& [number, r] : files) all.push_back(std::move(r));
  const Result<ByteVector> edit = lsmrepair::PebbleRepairEdit(all, next);
  FUZZ_CHECK(edit.ok());
  ByteVector out;
  lsmrepair::LogWriter writer(out);
  for (const LogRecord& r : log.records) writer.AddRecord(r.payload);
  writer.AddRecord(*edit);
  const Manifest again = ReadManifest(out, Flavor::kPebble, "fuzz/MANIFEST-000002");
  FUZZ_CHECK(!again.damaged && again.column_families.size() == 1);
  FUZZ_CHECK(again.column_families[0].tables.size() == want.size());
  for (const TableMeta& t : again.column_families[0].tables) {
    const auto it = want.find(t.number);
    FUZZ_CHECK(it != want.end() && SameTable(t, it->second));
  }
}

void Check(ByteSpan file, Flavor flavor) {
  const Manifest m = ReadManifest(file, flavor, "fuzz/MANIFEST-000001");
  for (const Finding& f : m.findings) {
    if (f.offset) FUZZ_CHECK(*f.offset <= file.size());
    FUZZ_CHECK(!f.message.empty());
  }
  const int levels = flavor == Flavor::kRocksDb ? kMaxLevels : kLevelDbLevels;
  for (const ColumnFamily& c : m.column_families) {
    for (const TableMeta& t : c.tables) {
      FUZZ_CHECK(t.level >= 0 && t.level < levels);
      FUZZ_CHECK(t.smallest.size() >= 8 && t.largest.size() >= 8);
    }
  }
  FUZZ_CHECK(!m.column_families.empty() || flavor == Flavor::kRocksDb);
  if (flavor == Flavor::kPebble) CheckPebble(m);
}

// Pebble's OPTIONS parser on the bytes as text, and each line as a marker file name: a marker
// that parses is spelled back and parses the same.
void CheckPebbleFiles(ByteSpan bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const pebble::OptionsFile o = pebble::ParseOptions(text, "fuzz/OPTIONS-000001");
  for (const Finding& f : o.findings) {
    if (f.offset) FUZZ_CHECK(*f.offset <= text.size());
  }
  for (const auto& [level, policy] : o.filter_policy) FUZZ_CHECK(level >= 0 && level < 7);
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = text.find('\n', i);
    if (j == std::string_view::npos) j = text.size();
    const std::string name(text.substr(i, j - i));
    i = j + 1;
    const std::optional<pebble::Marker> m = pebble::ParseMarker(name);
    if (!m) continue;
    const std::optional<pebble::Marker> again = pebble::ParseMarker(
        "marker." + m->name + "." + std::to_string(m->iteration) + "." + m->value);
    FUZZ_CHECK(again && again->name == m->name && again->iteration == m->iteration &&
               again->value == m->value);
  }
}

// The input's fragments with valid checksums: each header's CRC recomputed in place, so that
// random bytes get past the record layer into the edit decoder.
std::vector<std::uint8_t> WithValidCrcs(ByteSpan in) {
  std::vector<std::uint8_t> out(in.begin(), in.end());
  std::size_t pos = 0;
  while (pos + kHeaderSize <= out.size()) {
    const std::size_t left = kBlockSize - pos % kBlockSize;
    if (left < kHeaderSize) {
      pos += left;
      continue;
    }
    const std::uint8_t type = out[pos + 6];
    const std::size_t header = type >= 5 && type <= 8 ? kRecyclableHeaderSize : kHeaderSize;
    const std::size_t length = out[pos + 4] | (std::size_t{out[pos + 5]} << 8);
    if (pos + header + length > out.size() || header + length > left) break;
    const std::uint32_t crc = blocktable::MaskCrc(
        blocktable::Crc32c(ByteSpan(out.data() + pos + 6, header - 6 + length)));
    for (int i = 0; i < 4; ++i) out[pos + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    pos += header + length;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteSpan file(data + 1, size - 1);
  if (data[0] % 4 == 3) {
    CheckPebbleFiles(file);
    return 0;
  }
  const Flavor flavor = data[0] % 4 == 2   ? Flavor::kPebble
                        : data[0] % 4 == 1 ? Flavor::kRocksDb
                                           : Flavor::kLevelDb;
  Check(file, flavor);
  const std::vector<std::uint8_t> fixed = WithValidCrcs(file);
  const ByteSpan valid(fixed.data(), fixed.size());
  Check(valid, flavor);
  if (flavor == Flavor::kPebble) {
    CheckPebbleRepairEdit(valid, ReadManifest(valid, flavor, "fuzz/MANIFEST-000001"));
  }
  return 0;
}
