// Helpers shared by the tests: fixture paths, reading (gzip-aware) fixture files, TSV tables, a
// temporary folder.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"

namespace bloomcodec::testing {

// Absolute path of a file under fixtures/.
std::string FixturePath(const std::string& relative);
// The file's bytes; a name ending in .gz (or missing but present as NAME.gz) is inflated.
// Fails the current test (and returns empty) when the file cannot be read.
ByteVector ReadFixture(const std::string& relative);
std::string ReadFixtureText(const std::string& relative);

// A tab-separated table with one header line.
struct TsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int Column(const std::string& name) const;  // -1 when absent
  const std::string& At(std::size_t row, const std::string& column) const;
};
TsvTable ReadTsvFixture(const std::string& relative);

// A key file of hex lines (the golden data's convention).
KeyList ReadHexKeysFixture(const std::string& relative);

ByteVector HexBytes(const std::string& hex);

// The bytes of `bits` with further bits set at random, each bit set with a chance d whose K-th
// power is near 1/2: about half of all probes then pass every one of their K tests, so an answer
// depends on each of a key's bits (in a sparse filter almost every absent key fails at its
// first bit, and a kernel that skipped a later one would go unnoticed).
void FillDensely(std::span<std::uint8_t> bits, std::int32_t k, std::uint64_t seed);

// Flips the bits of `mask` in the byte at `offset` of the file at `path`, in place (a damaged
// copy); a test failure when the byte cannot be read or written.
void FlipBitsAt(const std::string& path, std::uint64_t offset, std::uint8_t mask);

// A fresh folder under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "bloomcodec-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace bloomcodec::testing
