#include "engine/verify_codec.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "engine/family.h"

namespace bloomcodec {

namespace {

// The file's FillReport and any overfilled filter. `keys` (the number given, if any) judge the
// filter Probe asked; the others are judged against what their parameters allow.
void AddFill(const std::vector<engine::FilterFill>& filters, std::optional<std::uint64_t> keys,
             FileReport& report) {
  if (filters.empty()) return;
  FillReport fill;
  double weighted_fp = 0;
  double sized = 0;
  bool sized_known = true;
  // Per verdict kind (overfilled, undersized): how many filters, and the first one.
  struct Tally {
    FillVerdict first;
    std::uint64_t count = 0;
    std::uint64_t offset = 0;
  } tally[2];
  for (std::size_t i = 0; i < filters.size(); ++i) {
    const engine::FilterFill& f = filters[i];
    const bool given = keys.has_value() && f.probed;
    const std::optional<double> expected =
        given ? std::optional<double>(static_cast<double>(*keys)) : f.allowed;
    fill.bits += f.stats.bits;
    fill.bits_set += f.stats.bits_set;
    fill.hash_count = std::max(fill.hash_count, f.stats.hash_count);
    if (f.stats.hash_count > 0 && f.stats.bits > 0) fill.estimated_keys += f.stats.estimated_keys;
    // A block's filters are sized by one bits_per_key, so their bits weigh like their keys.
    weighted_fp += static_cast<double>(f.stats.bits) * f.stats.false_positive_rate;
    if (expected)
      sized += *expected;
    else
      sized_known = false;
    FillVerdict verdict =
        JudgeFill(f.stats, expected, given ? "given" : "allowed by its size and k");
    if (!verdict) continue;
    Tally& t = tally[verdict.kind == finding_kind::kOverfilled ? 0 : 1];
    if (t.count++ == 0) {
      if (filters.size() > 1)
        verdict.reason = "filter at byte " + std::to_string(f.offset) + ": " + verdict.reason;
      t.first = std::move(verdict);
      t.offset = f.offset;
    }
  }
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = fill.bits > 0 ? weighted_fp / static_cast<double>(fill.bits) : 0;
  if (sized_known) {
    fill.sized_keys = sized;
    fill.sized_keys_from = !keys                 ? "parameters"
                           : filters.size() == 1 ? "keys"
                                                 : "keys and parameters";
  }
  report.fill = fill;
  for (const Tally& t : tally) {
    if (t.count == 0) continue;
    const bool overfilled = t.first.kind == finding_kind::kOverfilled;
    report.Add(
        t.first.severity, t.first.kind,
        (t.count > 1 ? std::to_string(t.count) + " filters " + std::string(t.first.kind) + "; "
                     : "") +
            t.first.reason + (overfilled ? ": the filter was damaged or built for other keys" : ""),
        t.offset);
  }
}

}  // namespace

FileReport VerifyWithCodec(const std::string& path, const FormatCodec* format,
                           const KeyStream* keys, const ProbeOptions& probe) {
  FileReport report;
  report.path = path;
  report.format = std::string(format->name());
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  // The file is read once (OpenProbe); the keys are streamed through it a chunk at a time.
  Result<std::unique_ptr<FileProbe>> prober = format->OpenProbe(in->bytes(), path, probe);
  FileReport::Asked asked{prober.status(), Status()};
  if (asked.asked.ok() && keys != nullptr) {
    asked = report.AskKeys(
        *keys, [&](auto chunk, auto answers) { return (*prober)->Probe(chunk, answers); });
  }
  if (!asked.asked.ok()) {
    // The file cannot answer: its structure is the finding, and no key was checked.
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, asked.asked));
    return report;
  }
  const Status& read = asked.read;
  if (!read.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kUnreadable, read));
  }
  report.FinishFalseNegatives("the filter");
  const engine::Family* family = engine::FamilyOf(format);
  if (family && family->verify.filters_of) {
    const std::optional<std::uint64_t> given =
        keys != nullptr && read.ok() ? std::optional<std::uint64_t>(report.keys_checked)
                                     : std::nullopt;
    AddFill(family->verify.filters_of(format, in->bytes(), path, report), given, report);
  }
  return report;
}

}  // namespace bloomcodec
