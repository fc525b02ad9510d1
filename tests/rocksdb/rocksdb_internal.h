// Declarations of RocksDB 7.8 internals that Debian's librocksdb exports but whose headers it
// does not ship: the filter bits builder and reader interfaces (since 7.0 only forward-declared
// in rocksdb/filter_policy.h) and the hash functions (util/hash.h). Only the differential tests
// use them, to drive the original filter code.
//
// What must match the library: the virtual functions' order and signatures (the vtable layout of
// FilterBitsBuilder / FilterBitsReader in RocksDB 7.8's table/block_based/filter_policy_internal.h)
// and the free functions' signatures (their mangled names). A mismatch shows up as crashes or
// wrong bytes in every test of this binary, not as a quiet pass: the golden filters are rebuilt
// through these declarations too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "rocksdb/filter_policy.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace rocksdb {

class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
  virtual std::size_t EstimateEntriesAdded() = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* status) {
    (void)status;
    return Finish(buf);
  }
  virtual Status MaybePostVerify(const Slice& filter_content) {
    (void)filter_content;
    return Status::OK();
  }
  virtual std::size_t ApproximateNumEntries(std::size_t bytes) = 0;
};

class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};

std::uint32_t Hash(const char* data, std::size_t n, std::uint32_t seed);
std::uint64_t Hash64(const char* data, std::size_t n);

}  // namespace rocksdb
