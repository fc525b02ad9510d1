// One SST written by the original (librocksdb's SstFileWriter), for the tests that build their
// own options around it.
//
//   const std::string path = WriteSstWithRocksDb(dir.path(), options, sorted_keys);
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"

namespace bloomcodec::testing {

// `keys` (in the order of the options' comparator, distinct) each with the value "v", written to
// DIR/000001.sst with `options`; returns the path. A refusal fails the calling test.
inline std::string WriteSstWithRocksDb(const std::string& dir, const ::rocksdb::Options& options,
                                       const std::vector<std::string>& keys) {
  const std::string path = dir + "/000001.sst";
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), options);
  EXPECT_TRUE(writer.Open(path).ok());
  for (const std::string& k : keys) EXPECT_TRUE(writer.Put(k, "v").ok());
  EXPECT_TRUE(writer.Finish().ok());
  return path;
}

}  // namespace bloomcodec::testing
