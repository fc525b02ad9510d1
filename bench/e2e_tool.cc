// The end-to-end benchmark's helper (issue 17): writes data directories of each family fast, and
// times the bare batch probe of the filters they hold. bench/verify_e2e drives it.
//
//   bloomcodec_e2e gen cassandra-big DIR KEYS SSTABLES [PROMOTED_BYTES]
//   bloomcodec_e2e gen cassandra-bti DIR KEYS SSTABLES
//   bloomcodec_e2e gen leveldb DIR KEYS
//   bloomcodec_e2e gen rocksdb DIR KEYS
//   bloomcodec_e2e gen pebble DIR KEYS   (e2e_pebble.h: our Pebble writer; no Pebble runs here)
//   bloomcodec_e2e probe FAMILY DIR      -> one JSON line {keys, filters, filter_bytes, probe_ns}
//   bloomcodec_e2e original leveldb|rocksdb DIR  -> one JSON line {keys, read_ns}
//
// Keys are 16 bytes, splitmix64 of a counter (distinct, look random). Cassandra files are written
// here directly: Index.db in the 4.0 entry layout (vint position, vint promoted-index size, that
// many bytes), Filter.db by our Murmur3 filter sized as Cassandra sizes it for fp chance 0.01;
// BTI's Partitions.db by the specification writer of the library (the one tests/cassandra_bti
// uses), with an uncompressed Data.db. LevelDB and RocksDB databases are written by the
// originals (Debian's libleveldb and librocksdb): Put in random key order with a large write
// buffer (no WAL for RocksDB), then CompactRange.
//
// The probe loads, untimed, each filter and the keys verify asks of it (Index.db entries,
// the keys Partitions.db leads to, each table's user keys grouped per filter) and times only
// the batch probe (MayContainBatch / the filter block's KeyMayMatchBatch) over all of them, on
// one thread, in thread CPU time; it fails when a stored key is answered absent.
//
// "original" times, in thread CPU time on one thread, what the original library pays to read
// every key of every table with its checksums verified: libleveldb's Table iterator, librocksdb's
// SstFileReader iterator (ReadOptions::verify_checksums, no block cache). That is the floor of
// what reading a table's keys costs in that format, before any filter is asked.
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/table.h>
#include <leveldb/write_batch.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/verify.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/bti/verify_keys.h"
#include "cassandra/index_db.h"
#include "e2e_pebble.h"
#include "leveldb/table/table_reader.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::bench {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bloomcodec_e2e: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(*r);
}
void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

// Key i of a data set: 16 bytes, two splitmix64 words of the counter (distinct for distinct i,
// since splitmix64 is a bijection of its first word).
void KeyOf(std::uint64_t i, std::uint8_t out[16]) {
  const std::uint64_t a = SplitMix64(i);
  const std::uint64_t b = SplitMix64(a ^ 0x5bd1e995u);
  for (int j = 0; j < 8; ++j) {
    out[j] = static_cast<std::uint8_t>(a >> (56 - 8 * j));
    out[8 + j] = static_cast<std::uint8_t>(b >> (56 - 8 * j));
  }
}

// A buffered file writer (1 MiB), dying with the path on any error.
class Writer {
 public:
  explicit Writer(const fs::path& p) : path_(p.string()), f_(std::fopen(path_.c_str(), "wb")) {
    if (f_ == nullptr) Die("cannot create " + path_);
    buf_.reserve(1 << 20);
  }
  ~Writer() { Close(); }
  void Put(const std::uint8_t* p, std::size_t n) {
    if (buf_.size() + n > buf_.capacity()) Flush();
    if (n >= buf_.capacity()) {
      if (std::fwrite(p, 1, n, f_) != n) Die("cannot write " + path_);
      return;
    }
    buf_.insert(buf_.end(), p, p + n);
  }
  void Put(ByteSpan b) { Put(b.data(), b.size()); }
  void Zeros(std::size_t n) {
    static const std::uint8_t zeros[4096] = {};
    while (n > 0) {
      const std::size_t k = std::min(n, sizeof(zeros));
      Put(zeros, k);
      n -= k;
    }
  }
  void Close() {
    if (f_ == nullptr) return;
    Flush();
    if (std::fclose(f_) != 0) Die("cannot close " + path_);
    f_ = nullptr;
  }

 private:
  void Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      Die("cannot write " + path_);
    }
    buf_.clear();
  }
  std::string path_;
  std::FILE* f_;
  ByteVector buf_;
};

const char kTableDir[] = "tbl-0123456789abcdef0123456789abcdef";

std::vector<std::uint64_t> SplitEven(std::uint64_t keys, std::uint64_t parts) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t p = 0; p < parts; ++p) {
    out.push_back(keys / parts + (p < keys % parts ? 1 : 0));
  }
  return out;
}

void WriteFilter(const fs::path& p, const KeyList& keys) {
  const cassandra::FilterSpec spec =
      Check(cassandra::SizeForFpChance(static_cast<std::int64_t>(keys.size()), 0.01), "sizing");
  const ByteVector filter = Check(
      cassandra::BuildMurmur3Filter(keys, spec.hash_count, spec.word_count, cassandra::Era::kV40),
      "building " + p.string());
  Writer w(p);
  w.Put(filter);
}

// Cassandra 4.0 BIG (version nb): Index.db + Filter.db per sstable; every entry carries
// `promoted` bytes of promoted index (zeros) after its vint position and size.
void GenCassandraBig(const fs::path& dir, std::uint64_t keys, std::uint64_t sstables,
                     std::uint32_t promoted) {
  const fs::path table = dir / "ks" / kTableDir;
  fs::create_directories(table);
  std::uint64_t next = 0;
  int gen = 1;
  for (const std::uint64_t n : SplitEven(keys, sstables)) {
    const std::string prefix = (table / ("nb-" + std::to_string(gen++) + "-big-")).string();
    KeyList list;
    list.Reserve(n, n * 16);
    Writer index(prefix + "Index.db");
    ByteVector entry;
    std::uint64_t position = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint8_t k[16];
      KeyOf(next++, k);
      list.Add(ByteSpan(k, 16));
      entry.clear();
      entry.push_back(0);
      entry.push_back(16);
      entry.insert(entry.end(), k, k + 16);
      cassandra::PutCassandraUnsignedVInt(entry, position);
      cassandra::PutCassandraUnsignedVInt(entry, promoted);
      index.Put(entry);
      index.Zeros(promoted);
      position += 64;  // the row's bytes in Data.db (not written: verify never reads it)
    }
    index.Close();
    WriteFilter(prefix + "Filter.db", list);
  }
}

// Cassandra 5.0 BTI (version da): Partitions.db (the trie of the keys' shortest unique
// prefixes, each payload with the key's hash byte and its Data.db position), an uncompressed
// Data.db holding each partition's key (u16 length, bytes) and 16 bytes of row, and Filter.db.
void GenCassandraBti(const fs::path& dir, std::uint64_t keys, std::uint64_t sstables) {
  const fs::path table = dir / "ks" / kTableDir;
  fs::create_directories(table);
  std::uint64_t next = 0;
  int gen = 1;
  for (const std::uint64_t n : SplitEven(keys, sstables)) {
    const std::string prefix = (table / ("da-" + std::to_string(gen++) + "-bti-")).string();
    std::vector<std::array<std::uint8_t, 16>> sorted(n);
    for (auto& k : sorted) KeyOf(next++, k.data());
    std::sort(sorted.begin(), sorted.end());
    auto lcp = [&](std::size_t a, std::size_t b) {
      std::size_t l = 0;
      while (l < 16 && sorted[a][l] == sorted[b][l]) ++l;
      return l;
    };
    std::vector<cassandra::bti::PartitionEntry> entries(n);
    KeyList list;
    list.Reserve(n, n * 16);
    Writer data(prefix + "Data.db");
    std::uint64_t position = 0;
    static const std::uint8_t row[16] = {};
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t len = 0;
      if (i > 0) len = std::max(len, lcp(i - 1, i));
      if (i + 1 < n) len = std::max(len, lcp(i, i + 1));
      len = std::min<std::size_t>(len + 1, 16);
      const ByteSpan key(sorted[i].data(), 16);
      entries[i].prefix.assign(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(len));
      entries[i].hash = static_cast<std::uint8_t>(cassandra::CassandraMurmur3(key).h1);
      entries[i].position = ~static_cast<std::int64_t>(position);
      const std::uint8_t head[2] = {0, 16};
      data.Put(head, 2);
      data.Put(key);
      data.Put(row, sizeof(row));
      position += 2 + 16 + sizeof(row);
      list.Add(key);
    }
    data.Close();
    const ByteVector trie =
        Check(cassandra::bti::WritePartitionsDb(entries, ByteSpan(sorted.front().data(), 16),
                                                ByteSpan(sorted.back().data(), 16)),
              "writing " + prefix + "Partitions.db");
    Writer(prefix + "Partitions.db").Put(trie);
    Writer(prefix + "Rows.db").Close();
    WriteFilter(prefix + "Filter.db", list);
  }
}

// Key order of the Puts: a random permutation (the MemTable and the compaction then do the
// sorting, as on a live database).
std::vector<std::uint64_t> Shuffled(std::uint64_t keys) {
  std::vector<std::uint64_t> order(keys);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(keys);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

const char kValue[] = "value-16-bytes!!";

void GenLevelDb(const fs::path& dir, std::uint64_t keys) {
  fs::create_directories(dir.parent_path());
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  ::leveldb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.filter_policy = policy.get();
  options.write_buffer_size = 256 << 20;
  ::leveldb::DB* raw = nullptr;
  ::leveldb::Status s = ::leveldb::DB::Open(options, dir.string(), &raw);
  if (!s.ok()) Die("leveldb open: " + s.ToString());
  std::unique_ptr<::leveldb::DB> db(raw);
  ::leveldb::WriteOptions wo;
  ::leveldb::WriteBatch batch;
  std::uint64_t done = 0;
  for (const std::uint64_t i : Shuffled(keys)) {
    std::uint8_t k[16];
    KeyOf(i, k);
    batch.Put(::leveldb::Slice(reinterpret_cast<const char*>(k), 16), kValue);
    if (++done % 1000 == 0) {
      s = db->Write(wo, &batch);
      if (!s.ok()) Die("leveldb write: " + s.ToString());
      batch.Clear();
    }
  }
  s = db->Write(wo, &batch);
  if (!s.ok()) Die("leveldb write: " + s.ToString());
  db->CompactRange(nullptr, nullptr);
}

// The same keys in bytewise order, in tables of 2^21 keys (about 55 MiB each, under Pebble's
// 64 MiB target file size at L6, its bottom level).
void GenPebble(const fs::path& dir, std::uint64_t keys) {
  std::vector<Key16> sorted(keys);
  for (std::uint64_t i = 0; i < keys; ++i) KeyOf(i, sorted[i].data());
  std::sort(sorted.begin(), sorted.end());
  Check(WritePebbleDatabase(dir, sorted, std::size_t{1} << 21), "pebble database " + dir.string());
}

void GenRocksDb(const fs::path& dir, std::uint64_t keys) {
  fs::create_directories(dir.parent_path());
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.write_buffer_size = 256 << 20;
  options.target_file_size_base = 64 << 20;
  options.max_background_jobs = 2;
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));  // full filter (7.x default)
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  ::rocksdb::DB* raw = nullptr;
  ::rocksdb::Status s = ::rocksdb::DB::Open(options, dir.string(), &raw);
  if (!s.ok()) Die("rocksdb open: " + s.ToString());
  std::unique_ptr<::rocksdb::DB> db(raw);
  ::rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (const std::uint64_t i : Shuffled(keys)) {
    std::uint8_t k[16];
    KeyOf(i, k);
    s = db->Put(wo, ::rocksdb::Slice(reinterpret_cast<const char*>(k), 16), kValue);
    if (!s.ok()) Die("rocksdb put: " + s.ToString());
  }
  s = db->Flush(::rocksdb::FlushOptions());
  if (!s.ok()) Die("rocksdb flush: " + s.ToString());
  ::rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = ::rocksdb::BottommostLevelCompaction::kForce;
  s = db->CompactRange(cro, nullptr, nullptr);
  if (!s.ok()) Die("rocksdb compact: " + s.ToString());
  s = db->Close();
  if (!s.ok()) Die("rocksdb close: " + s.ToString());
}

// ---- the bare probe ----

struct ProbeTotals {
  std::uint64_t keys = 0;
  std::uint64_t filters = 0;
  std::uint64_t filter_bytes = 0;
  std::uint64_t ns = 0;
};

// CPU time of this thread: verify's side is measured as CPU time too (user + system from
// wait4), so neither is inflated by waiting for a core on a loaded machine.
std::uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// Times `probe` (which fills `answers`) in CPU time, and checks that every answer is 1.
void Timed(ProbeTotals& t, std::vector<std::uint8_t>& answers, const std::string& what,
           const std::function<void()>& probe) {
  const std::uint64_t start = ThreadCpuNs();
  probe();
  t.ns += ThreadCpuNs() - start;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] != 1) Die(what + ": key " + std::to_string(i) + " answered absent");
  }
  t.keys += answers.size();
}

std::vector<fs::path> FilesEndingIn(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void ProbeCassandra(const fs::path& dir, bool bti, ProbeTotals& t) {
  for (const fs::path& filter_path : FilesEndingIn(dir, "-Filter.db")) {
    std::string prefix = filter_path.string();
    prefix.resize(prefix.size() - std::string("Filter.db").size());
    cassandra::IndexDb index;
    if (bti) {
      FileReport report;
      std::optional<cassandra::IndexDb> loaded =
          cassandra::bti::LoadTrieIndexKeys(prefix, "da", "bti", report);
      if (!loaded) Die("cannot read the keys of " + prefix + "Partitions.db");
      index = std::move(*loaded);
    } else {
      const InputFile in = Check(InputFile::Open(prefix + "Index.db"), "opening Index.db");
      Check(cassandra::ReadIndexDbInto(in.bytes(), in.path(), cassandra::IndexKeyForm::kRaw,
                                       cassandra::IndexEntryForm::kVIntPositionAndPromoted, index),
            "reading " + in.path());
    }
    const InputFile in = Check(InputFile::Open(filter_path.string()), "opening filter");
    const cassandra::Murmur3Filter filter =
        Check(cassandra::Murmur3Filter::Parse(in.bytes(), in.path(), cassandra::Era::kV40),
              "parsing " + in.path());
    (void)filter.bits_set();  // every page of the filter in memory before the clock starts
    std::vector<std::uint8_t> answers(index.keys.size());
    Timed(t, answers, filter_path.string(), [&] { filter.MayContainBatch(index.keys, answers); });
    t.filters += 1;
    t.filter_bytes += in.bytes().size();
  }
}

// LevelDB: every table's user keys grouped by their data block, asked of that block's filter.
void ProbeLevelDb(const fs::path& dir, ProbeTotals& t) {
  for (const fs::path& p : FilesEndingIn(dir, ".ldb")) {
    const InputFile in = Check(InputFile::Open(p.string()), "opening table");
    const leveldb::TableReader reader =
        Check(leveldb::TableReader::Open(in.bytes(), in.path()), "opening " + in.path());
    if (!reader.filter()) Die(in.path() + " has no filter");
    const leveldb::FilterBlockReader filter(reader.filter()->contents.bytes(),
                                            reader.filter()->flavor);
    std::vector<std::pair<std::uint64_t, KeyList>> blocks;
    Check(reader.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle& block) {
      if (blocks.empty() || blocks.back().first != block.offset)
        blocks.push_back({block.offset, {}});
      blocks.back().second.Add(leveldb::UserKeyOf(key));
      return Status();
    }),
          "reading " + in.path());
    std::size_t n = 0;
    for (const auto& b : blocks) n += b.second.size();
    std::vector<std::uint8_t> answers(n);
    Timed(t, answers, in.path(), [&] {
      std::size_t at = 0;
      for (const auto& [offset, keys] : blocks) {
        filter.KeyMayMatchBatch(offset, keys, std::span(answers).subspan(at, keys.size()));
        at += keys.size();
      }
    });
    t.filters += 1;
    t.filter_bytes += reader.filter()->contents.bytes().size();
  }
}

void ProbeRocksDb(const fs::path& dir, ProbeTotals& t) {
  for (const fs::path& p : FilesEndingIn(dir, ".sst")) {
    const InputFile in = Check(InputFile::Open(p.string()), "opening SST");
    const rocksdb::SstReader reader =
        Check(rocksdb::SstReader::Open(in.bytes(), in.path()), "opening " + in.path());
    if (!reader.filter()) Die(in.path() + " has no filter");
    const rocksdb::FullFilterReader filter = Check(
        rocksdb::FullFilterReader::Parse(reader.filter()->contents.bytes(), in.path()), "filter");
    KeyList keys;
    Check(reader.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
      keys.Add(rocksdb::UserKeyOf(key));
      return Status();
    }),
          "reading " + in.path());
    std::vector<std::uint8_t> answers(keys.size());
    Timed(t, answers, in.path(), [&] { filter.MayContainBatch(keys, answers); });
    t.filters += 1;
    t.filter_bytes += reader.filter()->contents.bytes().size();
  }
}

// ---- the original's own read of every key ----

struct OriginalTotals {
  std::uint64_t keys = 0;
  std::uint64_t ns = 0;
};

void ReadLevelDbTables(const fs::path& dir, OriginalTotals& t) {
  ::leveldb::Env* env = ::leveldb::Env::Default();
  for (const fs::path& p : FilesEndingIn(dir, ".ldb")) {
    const std::uint64_t size = fs::file_size(p);
    ::leveldb::RandomAccessFile* raw_file = nullptr;
    ::leveldb::Status s = env->NewRandomAccessFile(p.string(), &raw_file);
    if (!s.ok()) Die("leveldb: " + s.ToString());
    std::unique_ptr<::leveldb::RandomAccessFile> file(raw_file);
    const std::uint64_t start = ThreadCpuNs();
    ::leveldb::Options options;  // no block cache: each data block is read once, as verify does
    ::leveldb::Table* raw_table = nullptr;
    s = ::leveldb::Table::Open(options, file.get(), size, &raw_table);
    if (!s.ok()) Die("leveldb table " + p.string() + ": " + s.ToString());
    std::unique_ptr<::leveldb::Table> table(raw_table);
    ::leveldb::ReadOptions ro;
    ro.verify_checksums = true;
    ro.fill_cache = false;
    std::unique_ptr<::leveldb::Iterator> it(table->NewIterator(ro));
    std::uint64_t keys = 0, bytes = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++keys;
      bytes += it->key().size();  // the key is looked at, as verify looks at every key
    }
    if (!it->status().ok()) Die("leveldb table " + p.string() + ": " + it->status().ToString());
    t.ns += ThreadCpuNs() - start;
    t.keys += keys;
    if (bytes < keys * 8) Die("leveldb table " + p.string() + ": keys shorter than their tags");
  }
}

void ReadRocksDbTables(const fs::path& dir, OriginalTotals& t) {
  for (const fs::path& p : FilesEndingIn(dir, ".sst")) {
    const std::uint64_t start = ThreadCpuNs();
    ::rocksdb::Options options;
    ::rocksdb::SstFileReader reader(options);
    ::rocksdb::Status s = reader.Open(p.string());
    if (!s.ok()) Die("rocksdb sst " + p.string() + ": " + s.ToString());
    ::rocksdb::ReadOptions ro;
    ro.verify_checksums = true;
    ro.fill_cache = false;
    std::unique_ptr<::rocksdb::Iterator> it(reader.NewIterator(ro));
    std::uint64_t keys = 0, bytes = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++keys;
      bytes += it->key().size();
    }
    if (!it->status().ok()) Die("rocksdb sst " + p.string() + ": " + it->status().ToString());
    t.ns += ThreadCpuNs() - start;
    t.keys += keys;
    if (keys > 0 && bytes == 0) Die("rocksdb sst " + p.string() + ": empty keys");
  }
}

std::uint64_t Number(const char* s) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || v < 0) Die(std::string("not a count: ") + s);
  return static_cast<std::uint64_t>(v);
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 4 && args[0] == "gen") {
    const fs::path dir = args[2];
    const std::uint64_t keys = Number(argv[4]);
    if (args[1] == "cassandra-big" && args.size() >= 5) {
      GenCassandraBig(dir, keys, Number(argv[5]),
                      args.size() >= 6 ? static_cast<std::uint32_t>(Number(argv[6])) : 0);
    } else if (args[1] == "cassandra-bti" && args.size() >= 5) {
      GenCassandraBti(dir, keys, Number(argv[5]));
    } else if (args[1] == "leveldb") {
      GenLevelDb(dir, keys);
    } else if (args[1] == "rocksdb") {
      GenRocksDb(dir, keys);
    } else if (args[1] == "pebble") {
      GenPebble(dir, keys);
    } else {
      Die("unknown family or missing argument: " + args[1]);
    }
    return 0;
  }
  if (args.size() == 3 && args[0] == "probe") {
    ProbeTotals t;
    const fs::path dir = args[2];
    if (args[1] == "cassandra-big") {
      ProbeCassandra(dir, false, t);
    } else if (args[1] == "cassandra-bti") {
      ProbeCassandra(dir, true, t);
    } else if (args[1] == "leveldb") {
      ProbeLevelDb(dir, t);
    } else if (args[1] == "rocksdb") {
      ProbeRocksDb(dir, t);
    } else {
      Die("unknown family: " + args[1]);
    }
    std::printf("{\"keys\": %llu, \"filters\": %llu, \"filter_bytes\": %llu, \"probe_ns\": %llu}\n",
                static_cast<unsigned long long>(t.keys), static_cast<unsigned long long>(t.filters),
                static_cast<unsigned long long>(t.filter_bytes),
                static_cast<unsigned long long>(t.ns));
    return 0;
  }
  if (args.size() == 3 && args[0] == "original") {
    OriginalTotals t;
    if (args[1] == "leveldb") {
      ReadLevelDbTables(args[2], t);
    } else if (args[1] == "rocksdb") {
      ReadRocksDbTables(args[2], t);
    } else {
      Die("no original reader for family " + args[1]);
    }
    std::printf("{\"keys\": %llu, \"read_ns\": %llu}\n", static_cast<unsigned long long>(t.keys),
                static_cast<unsigned long long>(t.ns));
    return 0;
  }
  std::fprintf(stderr,
               "usage: bloomcodec_e2e gen cassandra-big|cassandra-bti DIR KEYS SSTABLES "
               "[PROMOTED_BYTES]\n"
               "       bloomcodec_e2e gen leveldb|rocksdb DIR KEYS\n"
               "       bloomcodec_e2e probe cassandra-big|cassandra-bti|leveldb|rocksdb DIR\n"
               "       bloomcodec_e2e original leveldb|rocksdb DIR\n");
  return 2;
}

}  // namespace
}  // namespace bloomcodec::bench

int main(int argc, char** argv) { return bloomcodec::bench::Main(argc, argv); }
