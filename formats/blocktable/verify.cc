#include "blocktable/verify.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "blocktable/footer.h"
#include "blocktable/scan.h"
#include "bloomcodec/input_file.h"

namespace bloomcodec::blocktable {

// ---- the plug-in's optional hooks: what a format without such a thing needs ----------------------

Result<Block> VerifyPlugin::ReadIndexPartition(const BlockHandle& partition) const {
  return Status::Unsupported("index partition at offset " + std::to_string(partition.offset) +
                             ": the table format has no two-level index");
}

FilterGroup VerifyPlugin::FilterGroupOf(const BlockHandle&) const { return {0, true}; }

Status VerifyPlugin::CheckBlockStart(const BlockStart&) const { return Status(); }

Status VerifyPlugin::CheckBlockEnd(const DataBlockView&, ByteSpan) const { return Status(); }

Status VerifyPlugin::InvalidKind(const Block& block, std::size_t entry_position,
                                 std::uint8_t kind) const {
  return block.ErrorAt(entry_position, "a key kind that belongs in a data block",
                       "kind " + std::to_string(kind));
}

Status VerifyPlugin::CheckValue(const DataBlockView&, std::size_t, ByteSpan, ByteSpan) const {
  return Status();
}

Status VerifyPlugin::CheckAfterData(const ScanTotals&) const { return Status(); }

namespace {

void AddStructure(const Status& s, FileReport& report) {
  report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
}

// The data blocks as the index lists them (read once, before any range runs).
DataBlocks ListDataBlocks(const VerifyPlugin& plugin) {
  DataBlocks blocks;
  blocks.index_error = ForEachIndexedBlock(
      plugin.index_layout(), [&](const IndexEntry& e) { return plugin.DecodeIndexValue(e); },
      [&](const BlockHandle& partition) { return plugin.ReadIndexPartition(partition); },
      [&](ByteSpan key, const BlockHandle& handle) {
        blocks.handles.push_back(handle);
        blocks.index_keys.Add(key);
        return Status();
      });
  return blocks;
}

// The given keys, asked through the read path. False when the report ends here.
bool AskGivenKeys(const VerifyPlugin& plugin, const VerifySetup& setup, const KeyStream& probes,
                  bool structure_failed, FileReport& report) {
  const std::uint64_t before = report.false_negative_count;
  const std::uint64_t checked_before = report.keys_checked;
  KeyList copy;  // the batch path takes a KeyList: one chunk at a time
  const FileReport::Asked asked = report.AskKeys(probes, [&](auto chunk, auto answers) {
    copy.Assign(chunk);
    return plugin.MayContainBatch(copy, answers);
  });
  if (!asked.asked.ok()) {
    if (!structure_failed) AddStructure(asked.asked, report);
    return !setup.damage_ends_report;
  }
  if (!asked.read.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kUnreadable, asked.read));
  }
  if (setup.given_keys_own_finding && report.false_negative_count > before) {
    report.Add(Severity::kError, finding_kind::kFalseNegative,
               std::to_string(report.false_negative_count - before) + " of " +
                   std::to_string(report.keys_checked - checked_before) +
                   " given keys answered 'definitely absent' by the table's read path");
  }
  return true;
}

// Pebble's table magic (formats/pebble/table/table_reader.h), read as TrailingMagic reads.
constexpr std::uint64_t kPebbleMagic = 0xb3aa9ff0b3aa9ff0ull;

// Whether `magic` is, or is at most 8 bits off, a table magic of the formats read here or of
// RocksDB's other table types. A random 8-byte tail is that close to one of the six with a
// chance of about 2e-9: a tail that close is that format's magic, damaged.
bool NearKnownTableMagic(std::uint64_t magic) {
  constexpr std::uint64_t kKnown[] = {kLevelDbTableMagic, kBlockBasedTableMagic,
                                      kPlainTableMagic,   kPlainTableFormatVersion0Magic,
                                      kCuckooTableMagic,  kPebbleMagic};
  return std::any_of(std::begin(kKnown), std::end(kKnown),
                     [&](std::uint64_t known) { return std::popcount(magic ^ known) <= 8; });
}

// A table that failed to open and ends with no table magic we know: nothing in the file says it
// is a table (its name only suggested one), so its failure is not damage but `unknown`. A table
// a MANIFEST lists is judged again by the database (manifest/database_plan.cc).
void ReportUnknownMagic(ByteSpan file, FileReport& report) {
  if (file.size() < 8 || NearKnownTableMagic(TrailingMagic(file))) return;
  std::erase_if(report.findings, [](const Finding& f) {
    return f.kind == finding_kind::kStructure && f.severity == Severity::kError;
  });
  const std::string magic = ToHex(file.subspan(file.size() - 8));
  report.Add(Severity::kWarning, finding_kind::kUnknown,
             "not a format we know: magic " + magic +
                 " (no table magic of LevelDB, RocksDB or Pebble, nor one a few bits off): "
                 "another kind of file, or a table cut short; the file does not say which",
             file.size() - 8);
  report.findings.back().fields.emplace_back("magic", magic);
}

}  // namespace

FileReport VerifyBlockTable(const std::string& path, VerifyPlugin& plugin, const KeyStream* probes,
                            const std::string& group) {
  FileReport report;
  report.path = path;
  report.format = std::string(plugin.format_name());
  report.group = group;
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  if (!plugin.Open(in->bytes(), path, report)) {
    ReportUnknownMagic(in->bytes(), report);
    return report;
  }
  const VerifySetup setup = plugin.setup();

  const Status before_data = plugin.CheckBeforeData();
  if (!before_data.ok() && setup.damage_ends_report) {
    AddStructure(before_data, report);
    return report;
  }
  const DataBlocks blocks = ListDataBlocks(plugin);
  in->AdviseSequential();
  ScanTotals totals = ScanDataBlocks(plugin, setup, *in, blocks, before_data.ok());
  // Damage before the data blocks comes first in the file's order of checks.
  if (!before_data.ok()) totals.damage = before_data;
  if (!totals.damage && !totals.stopped) {
    if (Status after = plugin.CheckAfterData(totals); !after.ok()) totals.damage = after;
  }
  if (totals.damage) {
    AddStructure(*totals.damage, report);
    if (setup.damage_ends_report) return report;
  } else if (totals.stopped) {
    AddStructure(*totals.stopped, report);
  }
  const bool structure_failed = totals.damage || totals.stopped;

  report.false_negative_count = totals.false_negative_count;
  report.false_negatives = std::move(totals.false_negatives);
  if (!plugin.ReportStoredKeys(totals, report)) return report;
  if (setup.given_keys_own_finding) report.FinishFalseNegatives(plugin.filter_description());
  if (probes != nullptr && !AskGivenKeys(plugin, setup, *probes, structure_failed, report)) {
    return report;
  }
  if (!setup.given_keys_own_finding) report.FinishFalseNegatives(plugin.filter_description());
  if (!totals.stopped) plugin.ReportFill(totals, report);
  return report;
}

}  // namespace bloomcodec::blocktable
