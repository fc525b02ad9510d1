#include "prometheus.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "bloomcodec/output_file.h"

namespace bloomcodec::tool {

namespace {

// A label value: invalid UTF-8 replaced (as --json does), then \, " and newline escaped.
std::string LabelValue(const std::string& raw) {
  const std::string quoted =
      nlohmann::json(raw).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string utf8 = nlohmann::json::parse(quoted).get<std::string>();
  std::string out;
  for (char c : utf8) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value: integers exact, rates with 17 digits, NaN when there is none.
std::string Value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

struct GroupFigures {
  std::uint64_t tables = 0, errors = 0, warnings = 0, keys_checked = 0;
  double fp_rate = std::nan("");
};

void Metric(std::string& out, const char* name, const char* help) {
  out += "# HELP bloomcodec_verify_" + std::string(name) + " " + help + "\n";
  out += "# TYPE bloomcodec_verify_" + std::string(name) + " gauge\n";
}

}  // namespace

std::string PrometheusText(const VerifyReport& report) {
  using Key = std::pair<std::string, std::string>;  // group, role
  std::map<Key, GroupFigures> groups;
  for (const FileReport& f : report.files) {
    if (f.group.empty()) continue;
    GroupFigures& g = groups[{f.group, std::string(GroupRoleName(f.group_role))}];
    ++g.tables;
    const std::string_view status = f.status_name();
    g.errors += status == "error";
    g.warnings += status == "warning";
    g.keys_checked += f.keys_checked;
  }
  for (const GroupSummary& s : report.summary.groups) {
    groups[{s.name, std::string(GroupRoleName(s.role))}].fp_rate = s.combined_fp_rate;
  }

  const VerifySummary& s = report.summary;
  std::string out;
  Metric(out, "files", "Files verify checked, by status (ok, warning, error, gone, changed).");
  for (const auto& [status, n] : {std::pair<const char*, std::uint64_t>{"ok", s.ok},
                                  {"warning", s.warnings},
                                  {"error", s.errors},
                                  {"gone", s.gone},
                                  {"changed", s.changed}}) {
    out += std::string("bloomcodec_verify_files{status=\"") + status + "\"} " + std::to_string(n) +
           "\n";
  }
  struct Figure {
    const char* name;
    const char* help;
    std::string (*value)(const GroupFigures&);
  };
  static const Figure kFigures[] = {
      {"tables", "Tables (sstables) of the group verify checked, of every status.",
       [](const GroupFigures& g) { return std::to_string(g.tables); }},
      {"errors", "Tables of the group with an error finding.",
       [](const GroupFigures& g) { return std::to_string(g.errors); }},
      {"warnings", "Tables of the group with a warning and no error.",
       [](const GroupFigures& g) { return std::to_string(g.warnings); }},
      {"keys_checked", "Keys asked of the group's filters.",
       [](const GroupFigures& g) { return std::to_string(g.keys_checked); }},
      {"fp_rate",
       "False-positive rate a read of an absent key sees across the group (NaN: not known).",
       [](const GroupFigures& g) { return Value(g.fp_rate); }},
  };
  for (const Figure& figure : kFigures) {
    Metric(out, figure.name, figure.help);
    for (const auto& [key, g] : groups) {
      out += std::string("bloomcodec_verify_") + figure.name + "{group=\"" + LabelValue(key.first) +
             "\",role=\"" + key.second + "\"} " + figure.value(g) + "\n";
    }
  }
  return out;
}

Status WritePrometheus(const std::string& path, const VerifyReport& report) {
  const std::string text = PrometheusText(report);
  return WriteFileAtomically(path, AsBytes(text));
}

}  // namespace bloomcodec::tool
