#include "leveldb/table/table_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "blocktable/file_names.h"

namespace bloomcodec::leveldb {

namespace fs = std::filesystem;

bool LooksLikeDatabase(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dir) / "CURRENT", ec)) return true;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (blocktable::IsTableFileName(it->path().filename().string())) return true;
  }
  return false;
}

Result<std::vector<std::string>> FindTables(const std::string& dir) {
  std::vector<std::string> tables;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IoError(dir, "cannot list the directory: " + ec.message());
    if (blocktable::IsTableFileName(it->path().filename().string())) {
      tables.push_back(it->path().string());
    }
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

}  // namespace bloomcodec::leveldb
