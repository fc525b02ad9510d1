#include "leveldb_formats.h"

#include <vector>

namespace bloomcodec::leveldb {

const FormatCodec* TableFormatCodec();  // table/table_format.cc

std::span<const FormatCodec* const> Formats() {
  static const std::vector<const FormatCodec*> formats = {TableFormatCodec()};
  return formats;
}

}  // namespace bloomcodec::leveldb
