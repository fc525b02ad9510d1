// What the differential tests need from the ORIGINAL LevelDB 1.23: in-memory files for
// TableBuilder / Table::Open, a filter policy that records every KeyMayMatch call, access to
// Table::InternalGet (the function TableCache::Get calls for DB::Get), and database tables with
// several versions of each key.
#pragma once

#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>
#include <leveldb/table.h>
#include <leveldb/write_batch.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace leveldb {

// Table::InternalGet is private; Table befriends `TableCache`. This test-only class of that name
// (it defines no symbol LevelDB's own TableCache has) forwards to it so that the tests can run
// the original read path on a table opened from memory.
class TableCache {
 public:
  static Status BloomcodecInternalGet(Table* table, const ReadOptions& options, const Slice& key,
                                      void* arg,
                                      void (*handle)(void*, const Slice&, const Slice&)) {
    return table->InternalGet(options, key, arg, handle);
  }
};

}  // namespace leveldb

namespace bloomcodec::leveldb_test {

class StringSink final : public ::leveldb::WritableFile {
 public:
  ::leveldb::Status Append(const ::leveldb::Slice& data) override {
    contents.append(data.data(), data.size());
    return ::leveldb::Status::OK();
  }
  ::leveldb::Status Close() override { return ::leveldb::Status::OK(); }
  ::leveldb::Status Flush() override { return ::leveldb::Status::OK(); }
  ::leveldb::Status Sync() override { return ::leveldb::Status::OK(); }
  std::string contents;
};

class StringSource final : public ::leveldb::RandomAccessFile {
 public:
  explicit StringSource(std::string contents) : contents_(std::move(contents)) {}
  ::leveldb::Status Read(std::uint64_t offset, std::size_t n, ::leveldb::Slice* result,
                         char*) const override {
    if (offset > contents_.size()) return ::leveldb::Status::InvalidArgument("read past end");
    n = std::min(n, contents_.size() - static_cast<std::size_t>(offset));
    *result = ::leveldb::Slice(contents_.data() + offset, n);
    return ::leveldb::Status::OK();
  }
  std::uint64_t size() const { return contents_.size(); }

 private:
  std::string contents_;
};

// The built-in bloom policy, with every KeyMayMatch call recorded (key and filter bytes are the
// ones LevelDB passed, i.e. after InternalFilterPolicy stripped the tag inside a DB).
class RecordingPolicy final : public ::leveldb::FilterPolicy {
 public:
  struct Call {
    std::string key;
    std::string filter;
    bool result;
  };
  explicit RecordingPolicy(int bits_per_key)
      : inner_(::leveldb::NewBloomFilterPolicy(bits_per_key)) {}
  const char* Name() const override { return inner_->Name(); }
  void CreateFilter(const ::leveldb::Slice* keys, int n, std::string* dst) const override {
    inner_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const ::leveldb::Slice& key, const ::leveldb::Slice& filter) const override {
    const bool r = inner_->KeyMayMatch(key, filter);
    calls.push_back({key.ToString(), filter.ToString(), r});
    return r;
  }
  mutable std::vector<Call> calls;

 private:
  std::unique_ptr<const ::leveldb::FilterPolicy> inner_;
};

inline std::string VersionedKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key-%012d", i);
  return buf;
}

// A database table holding `versions` versions of each of `n` keys (`key(i)`, every seventh of
// the last version deleted): written to the log, then to one level-0 table when the database is
// opened again. Small blocks, so that a user key's versions straddle data blocks. Returns its
// path.
inline std::string WriteVersionedDatabaseTable(
    const std::string& dir, const ::leveldb::FilterPolicy* policy, int n, int versions, bool snappy,
    const std::function<std::string(int)>& key = VersionedKey) {
  ::leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy;
  options.block_size = 256;
  options.block_restart_interval = 4;
  options.write_buffer_size = 64 << 20;  // the whole log fits: one table at recovery
  options.compression = snappy ? ::leveldb::kSnappyCompression : ::leveldb::kNoCompression;
  for (int round = 0; round < 2; ++round) {
    ::leveldb::DB* raw = nullptr;
    EXPECT_TRUE(::leveldb::DB::Open(options, dir, &raw).ok());
    std::unique_ptr<::leveldb::DB> db(raw);
    if (round == 1) break;
    for (int v = 0; v < versions; ++v) {
      ::leveldb::WriteBatch batch;
      for (int i = 0; i < n; ++i) {
        if (v == versions - 1 && i % 7 == 3) {
          batch.Delete(key(i));
        } else {
          batch.Put(key(i), "v" + std::to_string(v) + "-" + std::to_string(i % 13));
        }
      }
      EXPECT_TRUE(db->Write({}, &batch).ok());
    }
  }
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".ldb") return e.path().string();
  }
  ADD_FAILURE() << "no table in " << dir;
  return {};
}

}  // namespace bloomcodec::leveldb_test
