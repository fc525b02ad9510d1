#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "bloomcodec/input_file.h"
#include "bloomcodec/output_file.h"

namespace bloomcodec {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "bloomcodec-files-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FilesTest, AtomicWriteThenMappedReadGivesTheBytesBack) {
  ByteVector data(1 << 20);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  std::string path = (dir_ / "out.bin").string();
  ASSERT_TRUE(WriteFileAtomically(path, data).ok());
  auto in = InputFile::Open(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_TRUE(in->is_mapped());
  EXPECT_TRUE(std::equal(in->bytes().begin(), in->bytes().end(), data.begin(), data.end()));
  // Only the output remains: no temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

// Below 256 KiB a file is read into memory, from there on mapped: the same bytes either way,
// and they outlive a move of the InputFile and the file's removal.
TEST_F(FilesTest, SmallFilesAreReadLargeOnesMapped) {
  for (std::size_t size : {std::size_t{1}, std::size_t{2000}, std::size_t{(256 << 10) - 1},
                           std::size_t{256 << 10}, std::size_t{(256 << 10) + 1}}) {
    ByteVector data(size);
    for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<std::uint8_t>(i * 13 + size);
    const std::string path = (dir_ / ("f" + std::to_string(size))).string();
    ASSERT_TRUE(WriteFileAtomically(path, data).ok());
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    EXPECT_EQ(in->is_mapped(), size >= (256u << 10)) << size;
    EXPECT_EQ(in->path(), path);
    fs::remove(path);
    InputFile moved = std::move(*in);
    ASSERT_EQ(moved.bytes().size(), size);
    EXPECT_TRUE(std::equal(moved.bytes().begin(), moved.bytes().end(), data.begin(), data.end()))
        << size;
  }
}

TEST_F(FilesTest, GzipOutputIsReadBackTransparently) {
  ByteVector data(50000, 0x5a);
  data[123] = 1;
  std::string path = (dir_ / "out.bin.gz").string();
  ASSERT_TRUE(WriteFileAtomically(path, data).ok());
  EXPECT_LT(fs::file_size(path), data.size() / 10) << "written compressed";
  auto in = InputFile::Open(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_TRUE(std::equal(in->bytes().begin(), in->bytes().end(), data.begin(), data.end()));
}

TEST_F(FilesTest, TruncatedGzipIsAnError) {
  ByteVector data(50000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 31 + i / 7);
  std::string path = (dir_ / "t.gz").string();
  ASSERT_TRUE(WriteFileAtomically(path, data).ok());
  fs::resize_file(path, fs::file_size(path) / 2);
  auto in = InputFile::Open(path);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().file(), path);
}

TEST_F(FilesTest, EmptyAndMissingFiles) {
  std::string empty = (dir_ / "empty").string();
  ASSERT_TRUE(WriteFileAtomically(empty, {}).ok());
  auto in = InputFile::Open(empty);
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(in->bytes().empty());
  auto missing = InputFile::Open((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_FALSE(InputFile::Open(dir_.string()).ok()) << "a directory is not a file";
}

TEST_F(FilesTest, WriteIntoMissingDirectoryFailsCleanly) {
  Status s = WriteFileAtomically((dir_ / "no" / "such" / "x").string(), ByteVector{1});
  EXPECT_EQ(s.code(), StatusCode::kIoError);
}

TEST_F(FilesTest, SameFileDetection) {
  std::string a = (dir_ / "a").string();
  ASSERT_TRUE(WriteFileAtomically(a, ByteVector{1}).ok());
  EXPECT_TRUE(IsSameFile(a, (dir_ / "." / "a").string()));
  EXPECT_FALSE(IsSameFile(a, (dir_ / "b").string()));
}

}  // namespace
}  // namespace bloomcodec
