#include "render.h"

#include <algorithm>
#include <cstdio>

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

bool IsListOfObjects(const Document& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const Document& e) { return e.is_object(); });
}

}  // namespace

void RenderDocument(const Document& doc, std::string& out, int indent) {
  std::size_t width = 0;
  for (const auto& [key, value] : doc.items()) width = std::max(width, key.size());
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (const auto& [key, value] : doc.items()) {
    if (value.is_object()) {
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
