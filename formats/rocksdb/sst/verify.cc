#include "rocksdb/sst/verify.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "leveldb/table/verify.h"
#include "rocksdb/sst/sst_reader.h"
#include "sst_filter_stats.h"

namespace bloomcodec::rocksdb {

using blocktable::Block;
using blocktable::BlockFooterLayout;
using blocktable::BlockHandle;
using blocktable::BlockIterator;
using blocktable::CompareKeys;
using blocktable::HasBlockBasedTableMagic;
using blocktable::KeyOrder;
using blocktable::TrailerFormat;
using blocktable::VerifyBlock;
using blocktable::VerifyTrailer;

namespace {

namespace fs = std::filesystem;

bool IsSstName(std::string_view name) {
  if (name.ends_with(".gz")) name.remove_suffix(3);
  return name.ends_with(".sst") && leveldb::IsTableFileName(name);
}

// Every check that stops at the first problem: checksums and structure of every block, index
// separators, the entry count. Returns the number of entries.
class StructureCheck {
 public:
  explicit StructureCheck(const SstReader& sst) : sst_(sst) {}

  Status Run() {
    const TrailerFormat trailer = sst_.BlockOptions().trailer;
    const std::string& src = sst_.source();
    BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(sst_.file(), sst_.footer().metaindex_handle, src,
                                             trailer, "metaindex block"));
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_.file(), sst_.index_handle(), src, trailer, "index block"));
    BLOOMCODEC_RETURN_IF_ERROR(VerifyBlock(sst_.metaindex_block(), KeyOrder::kBytewise).status());
    for (const SstMetaindexEntry& e : sst_.metaindex()) {
      if (!e.handle) continue;
      BLOOMCODEC_RETURN_IF_ERROR(VerifyTrailer(sst_.file(), *e.handle, src, trailer,
                                               "meta block " + PrintableName(e.key)));
    }
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyBlock(sst_.index_block(), sst_.index_key_order(), sst_.index_value_encoding())
            .status());
    BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachIndexPartition(
        [&](ByteSpan, const BlockHandle& h) { return CheckIndexBlock(h, "index partition"); }));
    if (sst_.filter() && sst_.filter()->placement == FilterPlacement::kPartitioned) {
      BLOOMCODEC_ASSIGN_OR_RETURN(Block index, Block::Parse(sst_.filter()->contents, src,
                                                            "filter partition index",
                                                            BlockFooterLayout::kRocksDb));
      BLOOMCODEC_RETURN_IF_ERROR(
          VerifyBlock(index, sst_.index_key_order(), sst_.index_value_encoding()).status());
      BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachIndexEntry(index, [&](ByteSpan, const BlockHandle& h) {
        return VerifyTrailer(sst_.file(), h, src, trailer, "filter partition");
      }));
    }
    if (sst_.filter() && sst_.filter()->placement == FilterPlacement::kBlockBased) {
      // The layout RocksDB's BlockBasedFilterBlockBuilder writes (LevelDB's).
      BLOOMCODEC_RETURN_IF_ERROR(leveldb::ParseFilterBlockLayout(sst_.filter()->contents.bytes(),
                                                                 src, sst_.filter()->handle.offset)
                                     .status());
    }
    BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachDataBlock(
        [&](ByteSpan index_key, const BlockHandle& h) { return CheckDataBlock(index_key, h); }));
    BLOOMCODEC_RETURN_IF_ERROR(sst_.ForEachRangeDeletion([&](ByteSpan, ByteSpan) {
      ++range_deletions_;
      return Status();
    }));
    if (sst_.properties()) BLOOMCODEC_RETURN_IF_ERROR(CheckCounts());
    return Status();
  }

  std::uint64_t entries() const { return entries_; }
  std::uint64_t range_deletions() const { return range_deletions_; }

 private:
  // The counts RocksDB's table builder keeps as it adds entries (BlockBasedTableBuilder::Add):
  // num.entries counts every entry, range deletions included (they go to their own block);
  // num.range-deletions those; merge.operands the merges; deleted.keys the point deletions, to
  // which releases since 6.x add the range deletions (5.x counted them in a collector that saw
  // kTypeDeletion only), so it must lie between the two readings.
  Status CheckCounts() const {
    const TableProperties& props = *sst_.properties();
    const std::uint64_t at = sst_.properties_handle()->offset;
    const std::string& src = sst_.source();
    const std::uint64_t all = entries_ + range_deletions_;
    if (auto n = props.Number("rocksdb.num.entries"); n && *n != all) {
      return Status::Corrupt(src, at,
                             "rocksdb.num.entries equal to the " + std::to_string(entries_) +
                                 " entries of the data blocks + " +
                                 std::to_string(range_deletions_) + " range deletions (" +
                                 std::to_string(all) + ")",
                             std::to_string(*n));
    }
    if (auto n = props.Number("rocksdb.num.range-deletions"); n && *n != range_deletions_) {
      return Status::Corrupt(src, at,
                             "rocksdb.num.range-deletions equal to the " +
                                 std::to_string(range_deletions_) +
                                 " entries of the range deletion block",
                             std::to_string(*n));
    }
    if (auto n = props.Number("rocksdb.merge.operands"); n && *n != merges_) {
      return Status::Corrupt(src, at,
                             "rocksdb.merge.operands equal to the " + std::to_string(merges_) +
                                 " merge entries of the data blocks",
                             std::to_string(*n));
    }
    const std::uint64_t most = point_deletions_ + range_deletions_;
    if (auto n = props.Number("rocksdb.deleted.keys"); n && (*n < plain_deletions_ || *n > most)) {
      return Status::Corrupt(src, at,
                             "rocksdb.deleted.keys between the " +
                                 std::to_string(plain_deletions_) +
                                 " deletions of the data blocks and " + std::to_string(most) +
                                 " (all point deletions + range deletions)",
                             std::to_string(*n));
    }
    return Status();
  }

  Status CheckIndexBlock(const BlockHandle& h, std::string_view what) {
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_.file(), h, sst_.source(), sst_.BlockOptions().trailer, what));
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, sst_.ReadBlock(h, what));
    return VerifyBlock(b, sst_.index_key_order(), sst_.index_value_encoding()).status();
  }

  Status CheckDataBlock(ByteSpan index_key, const BlockHandle& h) {
    BLOOMCODEC_RETURN_IF_ERROR(
        VerifyTrailer(sst_.file(), h, sst_.source(), sst_.BlockOptions().trailer, "data block"));
    BLOOMCODEC_ASSIGN_OR_RETURN(Block b, sst_.ReadDataBlock(h));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, VerifyBlock(b, KeyOrder::kInternal));
    if (n == 0) return Status();
    // The index key must not sort before the block's last key.
    BlockIterator it(b, KeyOrder::kInternal);
    BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
    ByteVector last;
    while (it.valid()) {
      last.assign(it.key().begin(), it.key().end());
      CountType(it.key());
      BLOOMCODEC_RETURN_IF_ERROR(it.Next());
    }
    const ByteSpan compared = sst_.index_key_is_user_key() ? UserKeyOf(last) : ByteSpan(last);
    if (CompareKeys(sst_.index_key_order(), index_key, compared) < 0) {
      return Status::Corrupt(sst_.source(), h.offset,
                             "an index key at or after the data block's last key",
                             ToHex(index_key) + " < " + ToHex(compared));
    }
    entries_ += n;
    return Status();
  }

  // The value type is the tag's low byte (db/dbformat.h): kTypeDeletion 0x0, kTypeMerge 0x2,
  // kTypeSingleDeletion 0x7, kTypeDeletionWithTimestamp 0x14.
  void CountType(ByteSpan internal_key) {
    if (internal_key.size() < 8) return;  // VerifyBlock already refused it
    const std::uint8_t type = internal_key[internal_key.size() - 8];
    if (type == 0x0) ++plain_deletions_;
    if (type == 0x0 || type == 0x7 || type == 0x14) ++point_deletions_;
    if (type == 0x2) ++merges_;
  }

  const SstReader& sst_;
  std::uint64_t entries_ = 0;
  std::uint64_t range_deletions_ = 0;
  std::uint64_t plain_deletions_ = 0;
  std::uint64_t point_deletions_ = 0;
  std::uint64_t merges_ = 0;
};

void AddFill(const SstReader& sst, std::uint64_t distinct_keys, FileReport& report) {
  Result<SstFilterStats> stats = ComputeSstFilterStats(sst);
  if (!stats.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, stats.status()));
    return;
  }
  FillReport fill;
  fill.bits = stats->bits;
  fill.bits_set = stats->bits_set;
  fill.hash_count = stats->hash_count;
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = stats->fp_rate;
  fill.sized_keys = static_cast<double>(distinct_keys);
  fill.sized_keys_from = "table";
  // A Ribbon solution is about half ones whatever it holds: its fill says nothing of its keys.
  // A block-based filter is many small filters: one fill over all of them estimates no count.
  if (stats->ribbon || sst.filter()->placement == FilterPlacement::kBlockBased) {
    fill.estimated_keys = std::numeric_limits<double>::quiet_NaN();
  }
  if (!stats->ribbon && stats->filters == 1 && fill.bits > 0) {
    FillStatistics s = ComputeFillStatistics(fill.bits, fill.bits_set, fill.hash_count);
    fill.estimated_keys = s.estimated_keys;
    const std::string reason =
        OverfillReason(s, static_cast<double>(distinct_keys), "in its data blocks");
    if (!reason.empty()) {
      report.Add(Severity::kError, finding_kind::kOverfilled,
                 reason + ": the filter was damaged or built for other keys",
                 sst.filter()->handle.offset);
    }
  }
  if (stats->always_match) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "a filter RocksDB answers \"may match\" for every key (reserved or unusable "
               "metadata): it filters nothing",
               sst.filter()->handle.offset);
  }
  report.fill = fill;
}

// The last 8 bytes of a plain file (0 when shorter than a footer): read from the tail alone,
// since a folder may hold large files of other kinds.
std::uint64_t TailMagic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < static_cast<std::streamoff>(blocktable::kLegacyFooterSize)) return 0;
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
  if (IsSstName(entry.path().filename().string())) {
    // NNNNNN.sst(.gz): opened as verify opens it (a .gz is read decompressed).
    Result<InputFile> in = InputFile::Open(path);
    if (!in.ok()) return false;
    return HasBlockBasedTableMagic(in->bytes()) ||
           (set && IsRocksDbLegacyFooterTable(in->bytes(), path));
  }
  if (!set) return false;
  const std::uint64_t magic = TailMagic(entry.path());
  if (magic == blocktable::kBlockBasedTableMagic) return true;
  if (magic != blocktable::kLegacyTableMagic) return false;
  Result<InputFile> in = InputFile::Open(path);
  return in.ok() && IsRocksDbLegacyFooterTable(in->bytes(), path);
}

}  // namespace

bool IsRocksDbLegacyFooterTable(ByteSpan bytes, const std::string& path) {
  if (!blocktable::HasLegacyTableMagic(bytes)) return false;
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
    if (IsSstName(it->path().filename().string()) || (!has_current && IsRocksDbSst(*it, true))) {
      out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

FileReport VerifySst(const std::string& path, const KeyList* probes, const std::string& group,
                     const std::optional<PrefixExtractor>& prefix_override) {
  FileReport report;
  report.path = path;
  report.format = "rocksdb-sst";
  report.group = group;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  SstOpenOptions open;
  open.verify_checksums = true;
  Result<SstReader> opened = SstReader::Open(in->bytes(), path, open);
  if (!opened.ok()) {
    const bool unsupported = opened.status().code() == StatusCode::kUnsupported;
    report.findings.push_back(FindingFromStatus(
        Severity::kError, unsupported ? finding_kind::kUnsupported : finding_kind::kStructure,
        opened.status()));
    return report;
  }
  const SstReader& sst = *opened;
  if (sst.properties()) {
    // The policy name comes from the file (JSON needs UTF-8).
    report.version = PrintableName(sst.properties()->String("rocksdb.filter.policy").value_or(""));
  }
  StructureCheck structure(sst);
  Status s = structure.Run();
  if (!s.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
    return report;
  }
  if (!sst.filter()) {
    bool other = false;
    for (const SstMetaindexEntry& e : sst.metaindex()) {
      if (e.key.starts_with("fullfilter.") || e.key.starts_with("partitionedfilter.") ||
          e.key.starts_with("filter.")) {
        other = true;
        report.Add(Severity::kWarning, finding_kind::kUnsupported,
                   "metaindex entry " + PrintableName(e.key) +
                       ": not a filter of RocksDB's built-in policies (another policy); every "
                       "lookup reads a data block");
      }
    }
    if (!other) {
      report.Add(Severity::kWarning, finding_kind::kNoFilter,
                 "no filter: every lookup reads a data block");
    }
    report.keys_checked = structure.entries();
    // Every probe is answered "may contain": a read pays fp rate 1 (as for a LevelDB table).
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
    return report;
  }
  // The prefix extractor: the command line's, else a built-in one the properties name.
  const std::string extractor_name =
      sst.properties() ? sst.properties()->String("rocksdb.prefix.extractor.name").value_or("")
                       : std::string();
  std::optional<PrefixExtractor> prefix = prefix_override;
  if (!prefix) prefix = PrefixExtractor::FromPropertyName(extractor_name);
  if (sst.filter()->placement == FilterPlacement::kBlockBased) prefix.reset();
  if (!sst.whole_key_filtering() && !prefix) {
    const bool custom = !extractor_name.empty() && extractor_name != "nullptr";
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "whole_key_filtering is off: the filter holds prefixes, and without the prefix "
               "extractor (" +
                   (custom ? "the custom " + PrintableName(extractor_name) +
                                 ", not one we apply; --prefix-extractor fixed:N|capped:N|noop "
                                 "names one"
                           : std::string("none recorded")) +
                   ") point lookups do not consult it");
    report.keys_checked = structure.entries();
    FillReport always;
    always.fp_rate = 1.0;
    report.fill = always;
    return report;
  }
  // Every stored user key (each once) against the filter.
  std::uint64_t distinct = 0;
  // What RocksDB's builder added to the filter: each prefix once per run of equal prefixes,
  // and the whole keys with whole-key filtering.
  std::uint64_t filter_entries = 0;
  ByteVector previous;
  ByteVector previous_prefix;
  bool any = false;
  bool any_prefix = false;
  s = sst.ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle&) -> Status {
    const ByteSpan user = UserKeyOf(key);
    if (any && std::equal(previous.begin(), previous.end(), user.begin(), user.end())) {
      return Status();
    }
    any = true;
    previous.assign(user.begin(), user.end());
    ++distinct;
    if (sst.whole_key_filtering()) ++filter_entries;
    BLOOMCODEC_ASSIGN_OR_RETURN(bool maybe, sst.MayContain(user));
    if (prefix && prefix->InDomain(user)) {
      const ByteSpan p = prefix->Transform(user);
      if (!any_prefix ||
          !std::equal(p.begin(), p.end(), previous_prefix.begin(), previous_prefix.end())) {
        ++filter_entries;
        previous_prefix.assign(p.begin(), p.end());
        any_prefix = true;
      }
      if (maybe) {
        BLOOMCODEC_ASSIGN_OR_RETURN(maybe, sst.FilterHolds(p, user));
      }
    }
    if (!maybe) report.AddFalseNegative(user);
    return Status();
  });
  if (!s.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
    return report;
  }
  report.keys_checked = distinct;
  if (probes != nullptr) {
    std::vector<std::uint8_t> answers(probes->size());
    s = sst.MayContainBatch(*probes, answers);
    if (!s.ok()) {
      report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
      return report;
    }
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (answers[i] == 0) report.AddFalseNegative((*probes)[i]);
    }
    report.keys_checked += probes->size();
  }
  report.FinishFalseNegatives("the filter");
  AddFill(sst, prefix ? filter_entries : distinct, report);
  return report;
}

}  // namespace bloomcodec::rocksdb
