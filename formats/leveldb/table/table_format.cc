// Placeholder until the table reader lands: the leveldb-table format with no operations.
#include "bloomcodec/format.h"

namespace bloomcodec::leveldb {

namespace {
class TableFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return "leveldb-table"; }
  std::string_view summary() const override { return "an .ldb / .sst table file"; }
  std::string_view params_help() const override { return "--bits-per-key N"; }
};
}  // namespace

const FormatCodec* TableFormatCodec() {
  static const TableFormat format;
  return &format;
}

}  // namespace bloomcodec::leveldb
