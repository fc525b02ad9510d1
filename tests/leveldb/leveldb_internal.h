// Declarations of LevelDB 1.23 internals that the Debian static archive (libleveldb.a) defines
// but whose headers Debian does not ship: leveldb::Hash (util/hash.h) and the filter block
// builder and reader (table/filter_block.h). Only the differential tests use them, to run the
// original filter-block code against ours.
//
// What must match the archive: the class names, the member function signatures (they select the
// mangled symbols) and the data members' types and order (the archive's constructors and member
// functions address them; our inline destructors destroy them). These follow LevelDB 1.23's
// table/filter_block.h; member names are ours. A mismatch would show up as crashes or garbage in
// every test of this binary, not as a quiet pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

namespace leveldb {

std::uint32_t Hash(const char* data, std::size_t n, std::uint32_t seed);

class FilterBlockBuilder {
 public:
  explicit FilterBlockBuilder(const FilterPolicy* policy);
  FilterBlockBuilder(const FilterBlockBuilder&) = delete;
  FilterBlockBuilder& operator=(const FilterBlockBuilder&) = delete;

  void StartBlock(std::uint64_t block_offset);
  void AddKey(const Slice& key);
  Slice Finish();

 private:
  void GenerateFilter();

  const FilterPolicy* policy_;
  std::string flat_keys_;
  std::vector<std::size_t> key_starts_;
  std::string result_;
  std::vector<Slice> scratch_keys_;
  std::vector<std::uint32_t> filter_offsets_;
};

class FilterBlockReader {
 public:
  FilterBlockReader(const FilterPolicy* policy, const Slice& contents);
  bool KeyMayMatch(std::uint64_t block_offset, const Slice& key);

 private:
  const FilterPolicy* policy_;
  const char* data_;
  const char* offset_array_;
  std::size_t num_;
  std::size_t base_lg_;
};

}  // namespace leveldb
