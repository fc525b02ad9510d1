// Helpers shared by the tests: fixture paths, reading (gzip-aware) fixture files, TSV tables.
#pragma once

#include <map>
#include <string>
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

}  // namespace bloomcodec::testing
