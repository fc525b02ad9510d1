// Field-by-field equality of two verify FileReports, for tests that check a faster path (streamed,
// parallel) reports exactly what the plain path reports. NaN equals NaN (estimated_keys of a
// filter that estimates no count).
#pragma once

#include <cmath>
#include <string>

#include "bloomcodec/verify.h"

namespace bloomcodec::testing {

inline bool SameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Empty when equal, else what differs first (one line each).
inline std::string ReportDifference(const FileReport& a, const FileReport& b) {
  std::string d;
  const auto differ = [&](const std::string& what) { d += what + " differs\n"; };
  if (a.path != b.path) differ("path");
  if (a.format != b.format) differ("format");
  if (a.version != b.version) differ("version");
  if (a.writer != b.writer) differ("writer");
  if (a.group != b.group) differ("group");
  if (a.findings.size() != b.findings.size()) {
    differ("number of findings (" + std::to_string(a.findings.size()) + " vs " +
           std::to_string(b.findings.size()) + ")");
  } else {
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
      const Finding& x = a.findings[i];
      const Finding& y = b.findings[i];
      if (x.severity != y.severity || x.kind != y.kind || x.message != y.message ||
          x.offset != y.offset || x.fields != y.fields) {
        differ("finding " + std::to_string(i) + " ('" + x.kind + ": " + x.message + "' vs '" +
               y.kind + ": " + y.message + "')");
      }
    }
  }
  if (a.keys_checked != b.keys_checked) {
    differ("keys_checked (" + std::to_string(a.keys_checked) + " vs " +
           std::to_string(b.keys_checked) + ")");
  }
  if (a.false_negative_count != b.false_negative_count) {
    differ("false_negative_count (" + std::to_string(a.false_negative_count) + " vs " +
           std::to_string(b.false_negative_count) + ")");
  }
  if (a.false_negatives != b.false_negatives) differ("false_negatives");
  if (a.fill.has_value() != b.fill.has_value()) {
    differ("fill presence");
  } else if (a.fill) {
    const FillReport& x = *a.fill;
    const FillReport& y = *b.fill;
    if (x.bits != y.bits || x.bits_set != y.bits_set || x.hash_count != y.hash_count ||
        !SameDouble(x.fill_ratio, y.fill_ratio) ||
        !SameDouble(x.estimated_keys, y.estimated_keys) || !SameDouble(x.fp_rate, y.fp_rate) ||
        x.sized_keys.has_value() != y.sized_keys.has_value() ||
        (x.sized_keys && !SameDouble(*x.sized_keys, *y.sized_keys)) ||
        x.sized_keys_from != y.sized_keys_from) {
      differ("fill");
    }
  }
  if (a.group_role != b.group_role) differ("group_role");
  if (a.filter_ignored_by_reader != b.filter_ignored_by_reader) differ("filter_ignored_by_reader");
  return d;
}

// Whether a finding of `report` is about a block checksum (CRC-32C or another checksum type).
inline bool MentionsChecksum(const FileReport& report) {
  for (const Finding& f : report.findings) {
    if (f.message.find("CRC-32C") != std::string::npos ||
        f.message.find("checksum") != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace bloomcodec::testing
