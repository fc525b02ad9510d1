#include "render.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace bloomcodec::tool {
namespace {

std::string Scalar(const Document& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  if (v.is_array()) {
    std::string s;
    for (const Document& e : v) {
      if (!s.empty()) s += ",";
      s += Scalar(e);
    }
    return s.empty() ? "(none)" : s;
  }
  if (v.is_object()) {
    std::string s;
    for (const auto& [k, e] : v.items()) {
      if (!s.empty()) s += " ";
      s += k + "=" + Scalar(e);
    }
    return s;
  }
  return v.dump();
}

// One line per element of a list (a table's filters, data blocks): its own scalar fields only;
// nested objects and the estimator's name stay in the JSON document.
std::string ListItem(const Document& e) {
  std::string s;
  for (const auto& [k, v] : e.items()) {
    if (v.is_object() || k == "estimator") continue;
    if (!s.empty()) s += " ";
    s += k + "=" + Scalar(v);
  }
  return s;
}

// "[levels] bytes A..B in N buckets": the profile's line after its label.
std::string FillLine(const Document& profile) {
  const Document& buckets = profile["buckets"];
  std::string line = "[" + FillLevels(buckets, LocaleIsUtf8()) + "]";
  const std::uint64_t bytes = profile["bytes"].get<std::uint64_t>();
  if (profile["offset"].is_number()) {
    const std::uint64_t offset = profile["offset"].get<std::uint64_t>();
    line += " bytes " + std::to_string(offset) + ".." + std::to_string(offset + bytes);
  } else {
    line += " " + std::to_string(bytes) + " bytes";
  }
  return line + " in " + std::to_string(buckets.size()) + " buckets";
}

bool IsListOfObjects(const Document& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const Document& e) { return e.is_object(); });
}

}  // namespace

std::string FillLevels(const Document& buckets, bool utf8) {
  static constexpr const char* kBlocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static constexpr const char* kAscii[] = {" ", ".", ":", "-", "=", "+", "*", "%", "#"};
  std::string out;
  for (const Document& b : buckets) {
    const double share = b.is_number() ? b.get<double>() : 0;
    // Only an empty bucket is blank and only a full one the top level, so that a zeroed or
    // saturated region never hides among nearly empty or nearly full ones.
    int level = 0;
    if (share >= 1) {
      level = 8;
    } else if (share > 0) {
      level = 1 + std::min(6, static_cast<int>(share * 7));
    }
    out += (utf8 ? kBlocks : kAscii)[level];
  }
  return out;
}

bool LocaleIsUtf8() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    std::string v(value);
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v.find("utf-8") != std::string::npos || v.find("utf8") != std::string::npos;
  }
  return false;
}

void RenderDocument(const Document& doc, std::string& out, int indent) {
  std::size_t width = 0;
  for (const auto& [key, value] : doc.items()) width = std::max(width, key.size());
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (const auto& [key, value] : doc.items()) {
    if (key == "fill_profile" && value.is_object() && value.contains("buckets")) {
      std::string line = pad + key + ":";
      line.resize(pad.size() + width + 2, ' ');
      out += line + FillLine(value) + "\n";
    } else if (value.is_object()) {
      out += pad + key + ":\n";
      RenderDocument(value, out, indent + 2);
    } else if (IsListOfObjects(value)) {
      out += pad + key + ": " + std::to_string(value.size()) + "\n";
      for (const Document& e : value) out += pad + "  - " + ListItem(e) + "\n";
    } else {
      std::string line = pad + key + ":";
      line.resize(pad.size() + width + 2, ' ');
      out += line + Scalar(value) + "\n";
    }
  }
}

}  // namespace bloomcodec::tool
