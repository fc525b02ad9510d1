#include "blocktable/verify.h"

#include <utility>

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
  if (!plugin.Open(in->bytes(), path, report)) return report;
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
