#include "cassandra/summary_db.h"

#include <filesystem>
#include <string>

#include "bloomcodec/input_file.h"
#include "cassandra/statistics_db.h"
#include "codec/byte_reader.h"

namespace bloomcodec::cassandra {
namespace {

constexpr std::int32_t kBaseSamplingLevel = 128;  // Downsampling.BASE_SAMPLING_LEVEL
constexpr std::size_t kHeaderSize = 24;

// A path's sibling component: `path` ends with "<from>".
std::string Sibling(const std::string& path, std::string_view from, std::string_view to) {
  return path.substr(0, path.size() - from.size()) + std::string(to);
}

}  // namespace

std::optional<SummaryCount> RecordedSummaryCount(ByteSpan file, std::string_view version) {
  // ka (2.1) added the sampling level and the size at full sampling; before it the header had
  // neither (and hb .. jb record their count in Statistics.db anyway).
  if (version < std::string_view("ka")) return std::nullopt;
  ByteReader r(file, "");
  Result<std::int32_t> interval = r.ReadBigI32("min index interval");
  Result<std::int32_t> entries = r.ReadBigI32("entry count");
  Result<std::int64_t> size = r.ReadBigI64("offsets and entries size");
  Result<std::int32_t> level = r.ReadBigI32("sampling level");
  Result<std::int32_t> full = r.ReadBigI32("size at full sampling");
  if (!interval.ok() || !entries.ok() || !size.ok() || !level.ok() || !full.ok()) {
    return std::nullopt;
  }
  if (*interval < 1 || *entries < 1 || *entries > *full || *level < 1 ||
      *level > kBaseSamplingLevel) {
    return std::nullopt;
  }
  const std::uint64_t offsets = std::uint64_t{4} * static_cast<std::uint32_t>(*entries);
  if (*size < 0 || static_cast<std::uint64_t>(*size) < offsets ||
      static_cast<std::uint64_t>(*size) > file.size() - kHeaderSize) {
    return std::nullopt;
  }
  const std::uint64_t s = static_cast<std::uint32_t>(*full);
  const std::uint64_t i = static_cast<std::uint32_t>(*interval);
  return SummaryCount{(s - 1) * i + 1, s * i};
}

void ExpectIndexCount(const SstableFiles& sstable, bool trie_index, FilterKeys& keys) {
  const Descriptor& d = sstable.descriptor;
  const std::string& index = sstable.index_path;
  const std::string source = trie_index ? Sibling(index, "Index.db", "Partitions.db") : index;
  if (sstable.has_statistics &&
      ExpectStatisticsCount(sstable.statistics_path, d.version, d.sstable_format, source, keys)) {
    return;
  }
  if (trie_index || d.sstable_format == "bti") return;  // BTI has no Summary.db
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(Sibling(index, "Index.db", "Scylla.db"), ec)) return;
  const std::string summary = Sibling(index, "Index.db", "Summary.db");
  if (!fs::is_regular_file(summary, ec)) return;
  Result<InputFile> in = InputFile::Open(summary);
  if (!in.ok()) return;
  const std::optional<SummaryCount> n = RecordedSummaryCount(in->bytes(), d.version);
  if (n) keys.ExpectRecordedCount(n->least, source, summary, n->about);
}

}  // namespace bloomcodec::cassandra
