// The format-neutral half of verify: report bookkeeping, the thread pool, the summary and the
// two renderings. Planning is verify_plan.cc; the per-format checks live with their families.
#include "bloomcodec/verify.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "bloomcodec/filter_stats.h"
#include "codec/parallel.h"

namespace bloomcodec {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string_view GroupRoleName(GroupRole role) {
  switch (role) {
    case GroupRole::kLive: return "live";
    case GroupRole::kSnapshot: return "snapshot";
    case GroupRole::kBackup: return "backup";
    case GroupRole::kObsolete: return "obsolete";
  }
  return "live";
}

std::string EstimatedKeysText(double estimated_keys) {
  if (std::isinf(estimated_keys)) return "saturated (every bit set)";
  if (std::isnan(estimated_keys)) return "not estimable from the fill";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", estimated_keys);
  return buf;
}

namespace {

std::string Whole(double x) { return EstimatedKeysText(x); }

// "N keys in Index.db (+d the writer may add uncounted) set at most T (...)": the evidence.
std::string BoundText(const OverfillBound& b, double counted, std::string_view from,
                      double uncounted) {
  std::string text = Whole(counted) + " keys " + std::string(from);
  if (uncounted > 0) text += " (+" + Whole(uncounted) + " the writer may add uncounted)";
  text += " set at most " + Whole(std::floor(b.threshold));
  text += b.certain ? " (k bits each)"
                    : " (about " + Whole(b.mean_bound) + "; false-alarm probability 1e-6)";
  return text;
}

}  // namespace

FillVerdict JudgeFill(const FillStatistics& s, std::optional<double> counted, std::string_view from,
                      double uncounted) {
  FillVerdict v;
  const bool saturated = s.bits > 0 && s.bits_set == s.bits;
  const bool countable = counted && s.hash_count > 0 && s.bits > 0;
  const OverfillBound b =
      countable ? OverfillThreshold(s.bits, s.hash_count, *counted + uncounted) : OverfillBound{};
  const bool over = b.judged && static_cast<double>(s.bits_set) > b.threshold;
  if (saturated) {
    v.reason = "all " + std::to_string(s.bits) +
               " bits set, saturated (every bit set): every key is answered 'may contain'";
    if (over) {
      v.severity = Severity::kError;
      v.kind = finding_kind::kOverfilled;
      v.reason += "; " + BoundText(b, *counted, from, uncounted);
    } else {
      // No count, or one that can set every bit: the writer sized it too small for its keys.
      v.severity = Severity::kWarning;
      v.kind = finding_kind::kUndersized;
      v.reason += countable
                      ? "; the " + Whole(*counted) + " keys " + std::string(from) +
                            " can set every bit: the writer sized it too small for them"
                      : "; no key count to judge it by: the file does not tell damage from sizing";
    }
    return v;
  }
  if (!over) return v;
  v.severity = Severity::kError;
  v.kind = finding_kind::kOverfilled;
  v.reason = std::to_string(s.bits_set) + " of " + std::to_string(s.bits) + " bits set; " +
             BoundText(b, *counted, from, uncounted) + " (estimated keys " +
             EstimatedKeysText(s.estimated_keys) + ")";
  return v;
}

Finding FindingFromStatus(Severity severity, std::string_view kind, const Status& status) {
  Finding f;
  f.severity = severity;
  f.kind = std::string(kind);
  f.offset = status.offset();
  f.message = status.message();
  return f;
}

void FileReport::Add(Severity severity, std::string_view kind, std::string message,
                     std::optional<std::uint64_t> offset) {
  findings.push_back(Finding{severity, std::string(kind), std::move(message), offset, {}});
}

void FileReport::AddFalseNegative(ByteSpan key) {
  ++false_negative_count;
  if (false_negatives.size() < kMaxListedFalseNegatives) {
    false_negatives.emplace_back(key.begin(), key.end());
  }
}

FileReport::Asked FileReport::AskKeys(const KeyStream& keys, const AskFn& ask) {
  Asked out;
  out.asked = ask({}, {});
  if (!out.asked.ok()) return out;
  const std::uint64_t checked = keys_checked, counted = false_negative_count;
  const std::size_t listed = false_negatives.size();
  std::vector<std::uint8_t> answers;
  out.read = keys.ForEachChunk([&](std::span<const ByteSpan> chunk) {
    answers.assign(chunk.size(), 0);
    out.asked = ask(chunk, answers);
    if (!out.asked.ok()) return out.asked;
    keys_checked += chunk.size();
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (answers[i] == 0) AddFalseNegative(chunk[i]);
    }
    return Status();
  });
  if (!out.asked.ok()) {
    keys_checked = checked;
    false_negative_count = counted;
    false_negatives.resize(listed);
    out.read = Status();
  }
  return out;
}

void FileReport::FinishFalseNegatives(std::string_view filter_description) {
  if (false_negative_count == 0) return;
  std::string message = std::to_string(false_negative_count) + " of " +
                        std::to_string(keys_checked) + " keys answered 'definitely absent' by " +
                        std::string(filter_description) + "; first: " +
                        (false_negatives.front().empty() ? std::string("(the empty key)")
                                                         : ToHex(false_negatives.front()));
  Add(Severity::kError, finding_kind::kFalseNegative, std::move(message));
}

Severity FileReport::worst() const {
  Severity worst = Severity::kInfo;
  for (const Finding& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

std::string_view FileReport::status_name() const {
  if (during_run == DuringRun::kGone) return "gone";
  if (during_run == DuringRun::kChanged) return "changed";
  switch (worst()) {
    case Severity::kInfo: return "ok";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

namespace {

// One counted table of a group: its rate, its level (-1 unknown) and its weight in its level.
struct Counted {
  double rate = 1.0;
  int level = -1;
  double keys = 0;
};

// What a read of an absent key sees across the levels (see LevelSummary): level 0 and tables of
// no known level are each consulted; each level above contributes one table, its key-weighted
// mean rate.
std::vector<LevelSummary> LevelRates(const std::vector<Counted>& tables) {
  std::map<int, std::vector<const Counted*>> by_level;
  for (const Counted& c : tables) by_level[std::max(c.level, 0)].push_back(&c);
  std::vector<LevelSummary> levels;
  for (const auto& [level, members] : by_level) {
    LevelSummary l;
    l.level = level;
    l.tables = members.size();
    if (level == 0) {
      std::vector<double> rates;
      for (const Counted* c : members) rates.push_back(c->rate);
      l.fp_rate = CombinedFalsePositiveRate(rates);
    } else {
      double known = 0, with_keys = 0;
      for (const Counted* c : members) {
        if (c->keys > 0) known += c->keys, ++with_keys;
      }
      const double average = with_keys > 0 ? known / with_keys : 1.0;
      double sum = 0, weight = 0;
      for (const Counted* c : members) {
        const double w = c->keys > 0 ? c->keys : average;
        sum += w * c->rate;
        weight += w;
      }
      l.fp_rate = weight > 0 ? sum / weight : 0;
    }
    levels.push_back(l);
  }
  return levels;
}

}  // namespace

VerifySummary Summarize(std::span<const FileReport> files) {
  VerifySummary summary;
  struct Group {
    std::vector<Counted> counted;
    std::uint64_t damaged = 0, ignored = 0, unread = 0, not_counted = 0;
    std::string manifest;
    bool levels_known = true;
  };
  std::map<std::pair<std::string, GroupRole>, Group> groups;
  for (const FileReport& f : files) {
    ++summary.files;
    if (f.during_run != DuringRun::kStable) {
      // No read consults a file that is gone, and a file that kept changing was not judged.
      ++(f.during_run == DuringRun::kGone ? summary.gone : summary.changed);
      continue;
    }
    switch (f.worst()) {
      case Severity::kInfo: ++summary.ok; break;
      case Severity::kWarning: ++summary.warnings; break;
      case Severity::kError: ++summary.errors; break;
    }
    if (f.group.empty()) continue;
    Group& g = groups[{f.group, f.group_role}];
    Counted c;
    c.level = f.level;
    c.keys = static_cast<double>(f.keys_checked);
    if (f.fill && f.filter_ignored_by_reader) {
      ++g.ignored;
      c.rate = 1.0;
    } else if (f.fill && f.filter_unread_at_level) {
      ++g.unread;
      c.rate = 1.0;
    } else if (f.fill) {
      c.rate = f.fill->fp_rate;
    } else if (f.worst() == Severity::kError) {
      // A damaged file still sits on the read path; whatever its filter would have said, it
      // protects nothing now. Leaving it out would make the group look better than it is.
      ++g.damaged;
      c.rate = 1.0;
    } else {
      ++g.not_counted;
      continue;
    }
    if (f.level < 0 || f.manifest.empty()) g.levels_known = false;
    if (!f.manifest.empty()) g.manifest = f.manifest;
    g.counted.push_back(c);
  }
  for (const auto& [key, g] : groups) {
    std::vector<double> rates;
    for (const Counted& c : g.counted) rates.push_back(c.rate);
    GroupSummary s;
    s.name = key.first;
    s.role = key.second;
    s.tables = g.counted.size();
    s.damaged = g.damaged;
    s.ignored_filters = g.ignored;
    s.unread_level_filters = g.unread;
    s.not_counted = g.not_counted;
    s.combined_fp_rate = rates.empty() ? std::nan("") : CombinedFalsePositiveRate(rates);
    if (g.levels_known && !g.counted.empty() && key.second == GroupRole::kLive) {
      s.manifest = g.manifest;
      s.levels = LevelRates(g.counted);
      std::vector<double> level_rates;
      for (const LevelSummary& l : s.levels) level_rates.push_back(l.fp_rate);
      s.combined_fp_rate = CombinedFalsePositiveRate(level_rates);
    }
    summary.groups.push_back(std::move(s));
  }
  return summary;
}

std::vector<FileReport> RunVerifyTasks(std::span<const VerifyTask> tasks, unsigned threads,
                                       const VerifyProgress& progress) {
  std::vector<FileReport> reports(tasks.size());
  // Each report lands in its task's slot, so the order of the output never depends on
  // scheduling; a task may split a large file over the workers that are idle (codec/parallel.h).
  WorkPool pool(threads);
  std::mutex progress_mutex;
  std::size_t done = 0;
  pool.Run(tasks.size(), [&](std::size_t i) {
    reports[i] = tasks[i]();
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      progress(++done, tasks.size());
    }
  });
  return reports;
}

Result<VerifyReport> VerifyPaths(std::span<const std::string> paths, const VerifyOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<VerifyTask> tasks, PlanVerify(paths, options));
  VerifyReport report;
  report.files = RunVerifyTasks(tasks, options.threads, options.progress);
  report.summary = Summarize(report.files);
  return report;
}

namespace {

// The schema_version of verify's --json document (docs/schema/verify.schema.json): additive
// changes keep it; a field removed, renamed or retyped raises it (docs/cli.md, "JSON").
constexpr int kVerifyJsonSchemaVersion = 1;

// JSON has no infinity or NaN: an estimate that is not finite (every bit set, K = 0) is null.
Document Number(double v) { return std::isfinite(v) ? Document(v) : Document(nullptr); }

std::string Compact(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

constexpr std::size_t kTextFalseNegatives = 5;

// Key counts read better whole: "~994 keys", not "~9.94e+02".
std::string Count(double v) {
  if (!std::isfinite(v) || v >= 1e15) return Compact(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

Document VerifyReportJson(const VerifyReport& report) {
  Document doc;
  doc["schema_version"] = kVerifyJsonSchemaVersion;
  Document files = Document::array();
  for (const FileReport& f : report.files) {
    Document j;
    j["path"] = f.path;
    j["format"] = f.format;
    j["version"] = f.version;
    if (!f.writer.empty()) j["writer"] = f.writer;
    if (f.during_run != DuringRun::kStable) j["during_run"] = std::string(f.status_name());
    j["group"] = f.group;
    j["group_role"] = std::string(GroupRoleName(f.group_role));
    if (f.level >= 0) j["level"] = f.level;
    if (!f.column_family.empty()) j["column_family"] = f.column_family;
    if (!f.manifest.empty()) j["manifest"] = f.manifest;
    j["status"] = std::string(f.status_name());
    Document findings = Document::array();
    for (const Finding& finding : f.findings) {
      Document fj;
      fj["severity"] = std::string(SeverityName(finding.severity));
      fj["kind"] = finding.kind;
      fj["message"] = finding.message;
      if (finding.offset) fj["offset"] = *finding.offset;
      for (const auto& [name, value] : finding.fields) fj[name] = value;
      findings.push_back(std::move(fj));
    }
    j["findings"] = std::move(findings);
    j["keys_checked"] = f.keys_checked;
    j["false_negative_count"] = f.false_negative_count;
    Document negatives = Document::array();
    for (const ByteVector& key : f.false_negatives) negatives.push_back(ToHex(key));
    j["false_negatives"] = std::move(negatives);
    if (f.fill) {
      j["bits"] = f.fill->bits;
      j["bits_set"] = f.fill->bits_set;
      j["hash_count"] = f.fill->hash_count;
      j["fill_ratio"] = Number(f.fill->fill_ratio);
      j["estimated_keys"] = Number(f.fill->estimated_keys);
      j["sized_keys"] = f.fill->sized_keys ? Number(*f.fill->sized_keys) : Document(nullptr);
      j["sized_keys_from"] =
          f.fill->sized_keys_from.empty() ? Document(nullptr) : Document(f.fill->sized_keys_from);
      j["fp_rate"] = Number(f.fill->fp_rate);
    } else {
      for (const char* name : {"bits", "bits_set", "hash_count", "fill_ratio", "estimated_keys",
                               "sized_keys", "sized_keys_from", "fp_rate"}) {
        j[name] = nullptr;
      }
    }
    files.push_back(std::move(j));
  }
  doc["files"] = std::move(files);
  const VerifySummary& s = report.summary;
  Document summary;
  summary["files"] = s.files;
  summary["ok"] = s.ok;
  summary["warnings"] = s.warnings;
  summary["errors"] = s.errors;
  summary["gone"] = s.gone;
  summary["changed"] = s.changed;
  Document groups = Document::array();
  for (const GroupSummary& g : s.groups) {
    Document gj;
    gj["name"] = g.name;
    gj["role"] = std::string(GroupRoleName(g.role));
    gj["tables"] = g.tables;
    gj["damaged"] = g.damaged;
    gj["ignored_filters"] = g.ignored_filters;
    if (g.unread_level_filters > 0) gj["unread_level_filters"] = g.unread_level_filters;
    gj["not_counted"] = g.not_counted;
    gj["combined_fp_rate"] = Number(g.combined_fp_rate);
    if (!g.levels.empty()) {
      gj["manifest"] = g.manifest;
      Document levels = Document::array();
      for (const LevelSummary& l : g.levels) {
        Document lj;
        lj["level"] = l.level;
        lj["tables"] = l.tables;
        lj["fp_rate"] = Number(l.fp_rate);
        levels.push_back(std::move(lj));
      }
      gj["levels"] = std::move(levels);
    }
    groups.push_back(std::move(gj));
  }
  summary["groups"] = std::move(groups);
  doc["summary"] = std::move(summary);
  return doc;
}

std::string VerifyReportText(const VerifyReport& report) {
  std::string out;
  for (const FileReport& f : report.files) {
    std::string_view status = f.status_name();
    out += std::string(status) + std::string(8 - std::min<std::size_t>(status.size(), 7), ' ');
    out += f.path;
    if (!f.format.empty())
      out += "  [" + f.format + (f.version.empty() ? "" : " " + f.version) +
             (f.writer.empty() ? "" : ", written by " + f.writer) + "]";
    if (f.level >= 0) {
      out += "  level " + std::to_string(f.level);
      if (!f.column_family.empty() && f.column_family != "default") {
        out += " of column family " + f.column_family;
      }
    }
    out += "\n";
    std::string facts;
    if (f.keys_checked > 0 || f.false_negative_count > 0) {
      facts += std::to_string(f.keys_checked) + " keys checked, " +
               std::to_string(f.false_negative_count) + " false negatives";
    }
    if (f.fill && f.fill->bits == 0) {
      if (!facts.empty()) facts += "; ";
      facts += "no filter bits, fp rate " + Compact(f.fill->fp_rate);
    } else if (f.fill) {
      if (!facts.empty()) facts += "; ";
      facts += std::to_string(f.fill->bits_set) + "/" + std::to_string(f.fill->bits) +
               " bits set (" + Compact(100 * f.fill->fill_ratio) + "%), k " +
               std::to_string(f.fill->hash_count) + ", " +
               (std::isinf(f.fill->estimated_keys) ? EstimatedKeysText(f.fill->estimated_keys)
                : std::isnan(f.fill->estimated_keys)
                    ? "keys " + EstimatedKeysText(f.fill->estimated_keys)
                    : "~" + Count(f.fill->estimated_keys) + " keys");
      if (f.fill->sized_keys) {
        facts += " (for " + Count(*f.fill->sized_keys) +
                 (f.fill->sized_keys_from == "parameters" ? " at most, by its size and k)" : ")");
      }
      facts += ", fp rate " + Compact(f.fill->fp_rate);
    }
    if (!facts.empty()) out += "        " + facts + "\n";
    for (const Finding& finding : f.findings) {
      out += "        " + std::string(SeverityName(finding.severity)) + " " + finding.kind;
      if (finding.offset) out += " at byte " + std::to_string(*finding.offset);
      out += ": " + finding.message + "\n";
    }
    if (f.false_negative_count > 0) {
      // A few keys (hex, "" for the empty key) keep the line readable; --json lists more.
      const std::size_t shown =
          std::min<std::size_t>(f.false_negatives.size(), kTextFalseNegatives);
      out += "        false negatives";
      if (f.false_negative_count > shown) {
        out += " (first " + std::to_string(shown) + " of " +
               std::to_string(f.false_negative_count) + ")";
      }
      out += ":";
      for (std::size_t i = 0; i < shown; ++i) {
        const ByteVector& key = f.false_negatives[i];
        out += " " + (key.empty() ? std::string("\"\"") : ToHex(key));
      }
      out += "\n";
    }
  }
  const VerifySummary& s = report.summary;
  out += "summary: " + std::to_string(s.files) + " files: " + std::to_string(s.ok) + " ok, " +
         std::to_string(s.warnings) + " with warnings, " + std::to_string(s.errors) +
         " with errors";
  if (s.gone > 0) out += ", " + std::to_string(s.gone) + " gone during the run";
  if (s.changed > 0) out += ", " + std::to_string(s.changed) + " changed during the run";
  out += "\n";
  for (const GroupSummary& g : s.groups) {
    const std::string tables = std::to_string(g.tables) + (g.tables == 1 ? " table" : " tables");
    if (g.role == GroupRole::kLive) {
      if (g.levels.empty()) {
        out += "  " + g.name + ": " + tables + ", a read sees fp rate " +
               Compact(g.combined_fp_rate) + " (1 - prod(1 - p_i))";
      } else {
        // Level 0: every table; each level above: one table (its key-weighted mean rate).
        out += "  " + g.name + ": " + tables + " in " + std::to_string(g.levels.size()) +
               (g.levels.size() == 1 ? " level" : " levels") + " (";
        for (std::size_t i = 0; i < g.levels.size(); ++i) {
          out += (i ? ", " : "") + std::string("L") + std::to_string(g.levels[i].level) + ": " +
                 std::to_string(g.levels[i].tables) + " p " + Compact(g.levels[i].fp_rate);
        }
        out += "), a read sees fp rate " + Compact(g.combined_fp_rate) +
               " (every level-0 table, one table per level above)";
      }
    } else {
      out += "  " + g.name + ": " + std::string(GroupRoleName(g.role)) +
             " copy, no read consults it (not in the live group's rate): " + tables + ", fp rate " +
             Compact(g.combined_fp_rate) + " if it were live";
    }
    if (g.damaged > 0) out += "; " + std::to_string(g.damaged) + " damaged counted as p = 1";
    if (g.ignored_filters > 0) {
      out += "; " + std::to_string(g.ignored_filters) +
             " with a LevelDB <= 1.17 filter counted as p = 1 (a LevelDB 1.18+ reader is "
             "assumed; it ignores that filter)";
    }
    if (g.unread_level_filters > 0) {
      out += "; " + std::to_string(g.unread_level_filters) +
             " at L6 counted as p = 1 (Pebble's reads never consult L6 filters)";
    }
    if (g.not_counted > 0) {
      out += "; " + std::to_string(g.not_counted) +
             " not counted (no filter on disk: rebuilt at load)";
    }
    out += "\n";
  }
  return out;
}

}  // namespace bloomcodec
