// bloomcodec repair: rebuilds filters in place (the engine is the library's, bloomcodec/repair.h);
// this file parses flags, shows progress and prints the plan and its outcome.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "bloomcodec/repair.h"
#include "command_flags.h"
#include "commands.h"
#include "output.h"
#include "progress.h"

namespace bloomcodec::tool {

namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Signed(std::int64_t v) { return (v > 0 ? "+" : "") + std::to_string(v); }

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// An LSM table's place: its level and, beside the default one, its column family.
std::string Place(const TableRepair& t) {
  if (t.level < 0) return "";
  std::string place = "  level " + std::to_string(t.level);
  if (!t.column_family.empty() && t.column_family != "default") {
    place += ", column family " + t.column_family;
  }
  return place;
}

std::string TableText(const TableRepair& t) {
  std::string text = t.path + "  " + t.format + " " + t.version + Place(t) + "\n";
  if (t.action == "damaged") {
    return text + "  damaged, left untouched: " + t.damage + "\n";
  }
  if (t.action == "sound") return text + "  sound: verify finds nothing wrong with its filter\n";
  if (t.action == "unsupported") {
    // The note says why (a layout the rewrite does not handle): a warning, not damage.
    for (const std::string& n : t.notes) text += "  warning: " + n + "\n";
    return text;
  }
  text += "  " + t.action;
  if (!t.reasons.empty()) text += " (" + Joined(t.reasons) + ")";
  text += ": filter " + std::to_string(t.old_filter_bytes) + " -> " +
          std::to_string(t.new_filter_bytes) + " bytes";
  if (t.old_fp_rate || t.new_fp_rate) {
    text += ", fp rate " + (t.old_fp_rate ? Number(*t.old_fp_rate) : std::string("-")) + " -> " +
            (t.new_fp_rate ? Number(*t.new_fp_rate) : std::string("-"));
  }
  text += ", " + std::to_string(t.keys) + " keys\n";
  if (!t.new_format.empty() && t.bits_per_key) {
    text += "  new filter: " + t.new_format + ", " + Number(*t.bits_per_key) + " bits per key\n";
  }
  if (!t.new_path.empty()) text += "  new file: " + t.new_path + "\n";
  // A note that already says how the filter was sized (the writer's default) stands for it.
  const bool noted = std::any_of(t.notes.begin(), t.notes.end(), [&](const std::string& n) {
    return n.find(t.sizing_basis) != std::string::npos;
  });
  if (!t.sizing_basis.empty() && !noted) text += "  sized: " + t.sizing_basis + "\n";
  if (t.statistics_rewritten) text += "  Statistics.db: records the new fp chance\n";
  if (!t.backup.empty()) text += "  backup: " + t.backup + "\n";
  for (const std::string& n : t.notes) text += "  note: " + n + "\n";
  return text;
}

// "N unsupported (left untouched), " when a table's layout was not rebuilt; else nothing.
std::string Unsupported(const RepairReport& r) {
  const auto n = std::count_if(r.tables.begin(), r.tables.end(),
                               [](const TableRepair& t) { return t.action == "unsupported"; });
  return n == 0 ? "" : std::to_string(n) + " unsupported (left untouched), ";
}

std::string ReportText(const RepairReport& r) {
  std::string text;
  for (const TableRepair& t : r.tables) text += TableText(t);
  const bool lsm = std::any_of(r.tables.begin(), r.tables.end(),
                               [](const TableRepair& t) { return t.family != "cassandra"; });
  text += "\nsummary: " + std::to_string(r.tables.size()) + (lsm ? " tables, " : " sstables, ") +
          std::to_string(r.rebuilt) + (r.dry_run ? " to rebuild" : " rebuilt") + ", " +
          std::to_string(r.damaged) + " damaged (left untouched), " + Unsupported(r) +
          "filter bytes " + Signed(r.filter_bytes_delta) +
          (r.dry_run ? " (dry run: nothing was written)" : "") + "\n";
  return text;
}

nlohmann::ordered_json TableJson(const TableRepair& t) {
  nlohmann::ordered_json j;
  j["path"] = t.path;
  j["family"] = t.family;
  j["format"] = t.format;
  j["version"] = t.version;
  j["action"] = t.action;
  j["reasons"] = t.reasons;
  if (!t.damage.empty()) j["damage"] = t.damage;
  j["keys"] = t.keys;
  j["old_filter_bytes"] = t.old_filter_bytes;
  j["new_filter_bytes"] = t.new_filter_bytes;
  j["old_fp_rate"] = t.old_fp_rate ? nlohmann::ordered_json(*t.old_fp_rate) : nullptr;
  j["new_fp_rate"] = t.new_fp_rate ? nlohmann::ordered_json(*t.new_fp_rate) : nullptr;
  j["fp_chance"] = t.fp_chance ? nlohmann::ordered_json(*t.fp_chance) : nullptr;
  if (t.buckets_per_element) j["buckets_per_element"] = *t.buckets_per_element;
  j["sizing"] = t.sizing_basis;
  j["statistics_rewritten"] = t.statistics_rewritten;
  j["backup"] =
      t.backup.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.backup);
  j["notes"] = t.notes;
  if (t.family != "cassandra") {
    j["level"] = t.level;
    j["column_family"] = t.column_family;
    j["bits_per_key"] = t.bits_per_key ? nlohmann::ordered_json(*t.bits_per_key) : nullptr;
    j["new_format"] = t.new_format.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(t.new_format);
    j["new_path"] =
        t.new_path.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.new_path);
  }
  return j;
}

nlohmann::ordered_json ReportJson(const RepairReport& r) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kRepairJsonSchemaVersion;
  doc["dry_run"] = r.dry_run;
  doc["tables"] = nlohmann::ordered_json::array();
  for (const TableRepair& t : r.tables) doc["tables"].push_back(TableJson(t));
  nlohmann::ordered_json s;
  s["tables"] = r.tables.size();
  s["rebuilt"] = r.rebuilt;
  s["damaged"] = r.damaged;
  s["filter_bytes_delta"] = r.filter_bytes_delta;
  doc["summary"] = s;
  return doc;
}

Result<RepairOptions> ReadOptions(const Args& args) {
  RepairOptions options;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.fp_chance, args.JavaDouble("--fp-chance"));
  BLOOMCODEC_ASSIGN_OR_RETURN(options.bits_per_key, args.Decimal("--bits-per-key"));
  if (auto to = args.Value("--to")) {
    if (to->empty()) return Status::InvalidArgument("--to needs a format name");
    options.to = std::string(*to);
  }
  options.dry_run = args.Has("--dry-run");
  options.no_backup = args.Has("--no-backup");
  if (auto dir = args.Value("--backup")) {
    if (dir->empty()) return Status::InvalidArgument("--backup needs a directory");
    options.backup_dir = std::string(*dir);
  }
  return options;
}

std::string Megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

Result<bool> RunRepair(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kRepair)));
  if (args.positionals().empty()) {
    return Status::InvalidArgument("PATH is required (a data directory or an sstable)");
  }
  const bool json = args.Has("--json");
  BLOOMCODEC_ASSIGN_OR_RETURN(RepairOptions options, ReadOptions(args));
  std::vector<std::string> paths(args.positionals().begin(), args.positionals().end());
  RepairReport report;
  {
    // A terminal sees how far the run has got; pipes and --json see nothing.
    Progress progress(!json && ::isatty(2) == 1);
    const std::string verb = options.dry_run ? "planned " : "repaired ";
    const auto each_path = [&](std::size_t done, std::size_t total) {
      progress.Show(verb + std::to_string(done) + " of " + std::to_string(total) +
                    " sstables or databases");
    };
    // An LSM database's tables one by one: how many, and how many of their bytes.
    const auto each_table = [&](const RepairTableProgress& p) {
      progress.Show(p.database + ": " + verb + std::to_string(p.tables_done) + " of " +
                    std::to_string(p.tables_total) + " tables (" + Megabytes(p.bytes_done) +
                    " of " + Megabytes(p.bytes_total) + " MB)");
    };
    BLOOMCODEC_ASSIGN_OR_RETURN(report, RepairPaths(paths, options, each_path, each_table));
  }
  if (json) {
    BLOOMCODEC_RETURN_IF_ERROR(WriteJson(ReportJson(report)));
  } else {
    BLOOMCODEC_RETURN_IF_ERROR(WriteStdout(ReportText(report)));
  }
  return report.damaged == 0;
}

}  // namespace bloomcodec::tool
