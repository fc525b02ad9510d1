#include "engine/verify_codec.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "engine/family.h"

namespace bloomcodec {

namespace {

// The file's FillReport and any overfilled filter. `keys` (when given) judge the filter Probe
// asked; the others are judged against what their parameters allow.
void AddFill(const std::vector<engine::FilterFill>& filters, const KeyList* keys,
             FileReport& report) {
  if (filters.empty()) return;
  FillReport fill;
  double weighted_fp = 0;
  double sized = 0;
  bool sized_known = true;
  std::uint64_t overfilled = 0;
  std::string first_reason;
  std::uint64_t first_offset = 0;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    const engine::FilterFill& f = filters[i];
    const bool given = keys != nullptr && f.probed;
    const std::optional<double> expected =
        given ? std::optional<double>(static_cast<double>(keys->size())) : f.allowed;
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
    const std::string reason =
        OverfillReason(f.stats, expected, given ? "given" : "allowed by its size and k");
    if (!reason.empty() && overfilled++ == 0) {
      first_reason = (filters.size() > 1 ? "filter at byte " + std::to_string(f.offset) + ": "
                                         : std::string()) +
                     reason;
      first_offset = f.offset;
    }
  }
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = fill.bits > 0 ? weighted_fp / static_cast<double>(fill.bits) : 0;
  if (sized_known) {
    fill.sized_keys = sized;
    fill.sized_keys_from = keys == nullptr       ? "parameters"
                           : filters.size() == 1 ? "keys"
                                                 : "keys and parameters";
  }
  report.fill = fill;
  if (overfilled > 0) {
    report.Add(Severity::kError, finding_kind::kOverfilled,
               (overfilled > 1 ? std::to_string(overfilled) + " filters overfilled; " : "") +
                   first_reason + ": the filter was damaged or built for other keys",
               first_offset);
  }
}

}  // namespace

FileReport VerifyWithCodec(const std::string& path, const FormatCodec* format, const KeyList* keys,
                           const ProbeOptions& probe) {
  FileReport report;
  report.path = path;
  report.format = std::string(format->name());
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    report.Add(Severity::kError, finding_kind::kUnreadable, in.status().ToString());
    return report;
  }
  KeyList none;
  const KeyList& asked = keys ? *keys : none;
  std::vector<std::uint8_t> answers(asked.size());
  Status s = format->Probe(in->bytes(), path, asked, probe, answers);
  if (!s.ok()) {
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kStructure, s));
    return report;
  }
  report.keys_checked = asked.size();
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] == 0) report.AddFalseNegative(asked[i]);
  }
  report.FinishFalseNegatives("the filter");
  const engine::Family* family = engine::FamilyOf(format);
  if (family && family->verify.filters_of) {
    AddFill(family->verify.filters_of(format, in->bytes(), path, report), keys, report);
  }
  return report;
}

}  // namespace bloomcodec
