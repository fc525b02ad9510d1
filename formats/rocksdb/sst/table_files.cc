#include "rocksdb/sst/table_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "blocktable/file_names.h"
#include "blocktable/footer.h"
#include "bloomcodec/input_file.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

namespace {

namespace fs = std::filesystem;

// The last 8 bytes of a plain file (0 when shorter than a footer): read from the tail alone,
// since a folder may hold large files of other kinds.
std::uint64_t TailMagic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < static_cast<std::streamoff>(blocktable::kLevelDbFooterSize)) return 0;
  in.seekg(size - 8);
  std::uint8_t tail[8];
  if (!in.read(reinterpret_cast<char*>(tail), 8)) return 0;
  const std::uint64_t magic = blocktable::TrailingMagic(ByteSpan(tail, 8));
  if (magic == blocktable::kBlockBasedTableMagic &&
      size < static_cast<std::streamoff>(blocktable::kVersionedFooterSize)) {
    return 0;
  }
  return magic;
}

// `set`: a folder without CURRENT, whose tables may carry any name and format_version 0.
bool IsRocksDbSst(const fs::directory_entry& entry, bool set) {
  std::error_code ec;
  if (!entry.is_regular_file(ec)) return false;
  const std::string path = entry.path().string();
  if (blocktable::IsSstFileName(entry.path().filename().string())) {
    // NNNNNN.sst(.gz): opened as verify opens it (a .gz is read decompressed).
    Result<InputFile> in = InputFile::Open(path);
    if (!in.ok()) return false;
    return blocktable::HasBlockBasedTableMagic(in->bytes()) ||
           (set && IsRocksDbFormatVersion0Table(in->bytes(), path));
  }
  if (!set) return false;
  const std::uint64_t magic = TailMagic(entry.path());
  if (magic == blocktable::kBlockBasedTableMagic) return true;
  if (magic != blocktable::kLevelDbTableMagic) return false;
  Result<InputFile> in = InputFile::Open(path);
  return in.ok() && IsRocksDbFormatVersion0Table(in->bytes(), path);
}

}  // namespace

bool IsRocksDbFormatVersion0Table(ByteSpan bytes, const std::string& path) {
  if (!blocktable::HasLevelDbTableMagic(bytes)) return false;
  Result<SstReader> sst = SstReader::Open(bytes, path);
  return sst.ok() && sst->properties().has_value();
}

bool LooksLikeRocksDb(const std::string& dir) {
  std::error_code ec;
  const bool has_current = fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // LevelDB writes CURRENT and MANIFEST-* too; RocksDB alone writes OPTIONS-*.
    if (has_current && name.starts_with("OPTIONS-")) return true;
    // A database names its tables NNNNNN.sst; a folder without CURRENT is a set of SSTs
    // copied or written by hand (SstFileWriter), under any names, also RocksDB's
    // format_version 0 tables that end in LevelDB's magic (their metaindex names RocksDB's
    // properties).
    if (IsRocksDbSst(*it, !has_current)) return true;
  }
  return false;
}

Result<std::vector<std::string>> FindSstFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  const bool has_current = fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
    // Every NNNNNN.sst counts, damaged ones too (their damage is the finding); without CURRENT,
    // also every other file that ends in RocksDB's magic.
    if (blocktable::IsSstFileName(it->path().filename().string()) ||
        (!has_current && IsRocksDbSst(*it, true))) {
      out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bloomcodec::rocksdb
