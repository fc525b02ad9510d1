#include "support/test_support.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>

#include "bloomcodec/input_file.h"

namespace bloomcodec::testing {

void FlipBitsAt(const std::string& path, std::uint64_t offset, std::uint8_t mask) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  const int c = f.get();
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ mask));
  EXPECT_TRUE(c != EOF && f.good()) << path << ": byte " << offset;
}

std::string FixturePath(const std::string& relative) {
  return std::string(BLOOMCODEC_FIXTURES_DIR) + "/" + relative;
}

ByteVector ReadFixture(const std::string& relative) {
  std::string path = FixturePath(relative);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && ::stat((path + ".gz").c_str(), &st) == 0) path += ".gz";
  auto file = InputFile::Open(path);
  if (!file.ok()) {
    ADD_FAILURE() << file.status().ToString();
    return {};
  }
  ByteSpan b = file->bytes();
  return ByteVector(b.begin(), b.end());
}

std::string ReadFixtureText(const std::string& relative) {
  ByteVector b = ReadFixture(relative);
  return std::string(b.begin(), b.end());
}

int TsvTable::Column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

const std::string& TsvTable::At(std::size_t row, const std::string& column) const {
  int c = Column(column);
  if (c < 0) throw std::out_of_range("no column " + column);
  return rows.at(row).at(static_cast<std::size_t>(c));
}

TsvTable ReadTsvFixture(const std::string& relative) {
  std::string text = ReadFixtureText(relative);
  TsvTable t;
  std::size_t begin = 0;
  bool first = true;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::vector<std::string> fields;
    std::size_t fb = begin;
    for (;;) {
      std::size_t tab = text.find('\t', fb);
      if (tab == std::string::npos || tab > end) {
        fields.push_back(text.substr(fb, end - fb));
        break;
      }
      fields.push_back(text.substr(fb, tab - fb));
      fb = tab + 1;
    }
    if (first)
      t.header = std::move(fields);
    else
      t.rows.push_back(std::move(fields));
    first = false;
    begin = end + 1;
  }
  return t;
}

KeyList ReadHexKeysFixture(const std::string& relative) {
  ByteVector b = ReadFixture(relative);
  auto keys = ParseKeyFile(b, KeyFormat::kHex, relative);
  if (!keys.ok()) {
    ADD_FAILURE() << keys.status().ToString();
    return {};
  }
  return std::move(keys).value();
}

ByteVector HexBytes(const std::string& hex) {
  ByteVector out;
  if (!FromHex(hex, out)) throw std::invalid_argument("bad hex in test data: " + hex);
  return out;
}

void FillDensely(std::span<std::uint8_t> bits, std::int32_t k, std::uint64_t seed) {
  int ors = 1;  // OR of `ors` random words: d = 1 - 2^-ors
  double best = 2;
  for (int r = 1; r <= 8; ++r) {
    const double d = 1 - std::ldexp(1.0, -r);
    const double miss = std::fabs(std::pow(d, std::max(k, 1)) - 0.5);
    if (miss < best) best = miss, ors = r;
  }
  std::mt19937_64 random(seed);
  for (std::size_t i = 0; i < bits.size(); i += 8) {
    std::uint64_t word = 0;
    for (int r = 0; r < ors; ++r) word |= random();
    for (std::size_t b = 0; b < 8 && i + b < bits.size(); ++b) {
      bits[i + b] |= static_cast<std::uint8_t>(word >> (8 * b));
    }
  }
}

}  // namespace bloomcodec::testing
