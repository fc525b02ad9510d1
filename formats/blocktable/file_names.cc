#include "blocktable/file_names.h"

#include <algorithm>

namespace bloomcodec::blocktable {

namespace {

// Digits, then `.ext`, then an optional ".gz".
bool IsNumberedName(std::string_view name, std::string_view ext) {
  if (name.ends_with(".gz")) name.remove_suffix(3);
  if (!name.ends_with(ext) || name.size() <= ext.size() + 1) return false;
  name.remove_suffix(ext.size());
  if (!name.ends_with('.')) return false;
  name.remove_suffix(1);
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool IsTableFileName(std::string_view name) {
  return IsNumberedName(name, "ldb") || IsNumberedName(name, "sst");
}

bool IsSstFileName(std::string_view name) { return IsNumberedName(name, "sst"); }

}  // namespace bloomcodec::blocktable
