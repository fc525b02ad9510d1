// How a Pebble directory names its MANIFEST (see database.h): marker files
// (vfs/atomicfs/marker.go), the format major version they hold (format_major_version.go,
// lookupFormatMajorVersion), CURRENT (version_set.go of v1.1.5, readCurrentFile) and the OPTIONS
// file (options.go, parseOptions). database.cc reads the MANIFEST they lead to.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "bloomcodec/input_file.h"
#include "pebble/database.h"
#include "pebble/database_internal.h"

namespace bloomcodec::pebble {
namespace {

namespace fs = std::filesystem;

using manifest::ManifestFinding;

constexpr FormatMajorVersionInfo kVersions[] = {
    {1, "FormatMostCompatible", "RocksDBv2", "Pebble v1"},
    {2, "formatVersionedManifestMarker", "RocksDBv2", "Pebble v1"},
    {3, "FormatVersioned", "RocksDBv2", "Pebble v1"},
    {4, "FormatSetWithDelete", "RocksDBv2", "Pebble v1"},
    {5, "FormatBlockPropertyCollector", "Pebblev1", "Pebble v1"},
    {6, "FormatSplitUserKeysMarked", "Pebblev1", "Pebble v1"},
    {7, "FormatSplitUserKeysMarkedCompacted", "Pebblev1", "Pebble v1"},
    {8, "FormatRangeKeys", "Pebblev2", "Pebble v1"},
    {9, "FormatMinTableFormatPebblev1", "Pebblev2", "Pebble v1"},
    {10, "FormatPrePebblev1Marked", "Pebblev2", "Pebble v1"},
    {11, "formatUnusedPrePebblev1MarkedCompacted", "Pebblev2", "Pebble v1"},
    {12, "FormatSSTableValueBlocks", "Pebblev2 (Pebblev3 with EnableValueBlocks)", "Pebble v1"},
    {13, "FormatFlushableIngest", "Pebblev2 (Pebblev3 with EnableValueBlocks)",
     "Pebble v1, v2 and later"},
    {14, "FormatPrePebblev1MarkedCompacted", "Pebblev2 (Pebblev3 with EnableValueBlocks)",
     "Pebble v1, v2 and later"},
    {15, "FormatDeleteSizedAndObsolete", "Pebblev4", "Pebble v1, v2 and later"},
    {16, "FormatVirtualSSTables", "Pebblev4", "Pebble v1, v2 and later"},
    {17, "FormatSyntheticPrefixSuffix", "Pebblev4", "Pebble v2 and later"},
    {18, "FormatFlushableIngestExcises", "Pebblev4", "Pebble v2 and later"},
    {19, "FormatColumnarBlocks", "Pebblev5 (Pebble v2: Pebblev4 without EnableColumnarBlocks)",
     "Pebble v2 and later"},
    {20, "FormatWALSyncChunks", "Pebblev5 (Pebble v2: Pebblev4 without EnableColumnarBlocks)",
     "Pebble v2 and later"},
    {21, "FormatTableFormatV6", "Pebblev6", "Pebble v2 and later"},
    {22, "formatDeprecatedExperimentalValueSeparation", "Pebblev6", "Pebble v2 and later"},
    {23, "formatFooterAttributes", "Pebblev7", "Pebble v2 and later"},
    {24, "FormatValueSeparation", "Pebblev7", "Pebble v2 and later"},
    {25, "FormatExciseBoundsRecord", "Pebblev7", "Pebble 26.x"},
    {26, "FormatV2BlobFiles", "Pebblev7", "Pebble 26.x"},
    {27, "FormatBackingValueSize", "Pebblev7", "Pebble 26.x"},
    {28, "FormatMarkForCompactionInVersionEdit", "Pebblev7", "Pebble 26.x"},
    {29, "FormatIngestBlobFiles", "Pebblev7", "Pebble 26.x"},
    {30, "FormatRowblkMarkedForCompaction", "Pebblev7", "Pebble 26.x"},
};

constexpr std::uint64_t kNewestKnown = 30;

// Go's strconv.ParseUint(s, 10, 64): one or more decimal digits, at most 2^64 - 1.
std::optional<std::uint64_t> ParseUint(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.front() == '+' || s.front() == '-') {
    return std::nullopt;
  }
  return v;
}

// Go's strings.TrimSpace for the ASCII white space Pebble's files hold.
std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

const FormatMajorVersionInfo* FindFormatMajorVersion(std::uint64_t version) {
  for (const FormatMajorVersionInfo& v : kVersions) {
    if (v.version == version) return &v;
  }
  return nullptr;
}

std::optional<Marker> ParseMarker(const std::string& file) {
  std::string_view s(file);
  if (!s.starts_with("marker.")) return std::nullopt;
  s.remove_prefix(std::string_view("marker.").size());
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  Marker m;
  m.name = std::string(s.substr(0, dot));
  s.remove_prefix(dot + 1);
  const std::size_t dot2 = s.find('.');
  if (dot2 == std::string_view::npos) return std::nullopt;
  const std::optional<std::uint64_t> iteration = ParseUint(s.substr(0, dot2));
  if (!iteration) return std::nullopt;
  m.iteration = *iteration;
  m.value = std::string(s.substr(dot2 + 1));
  return m;
}

std::optional<std::uint64_t> ManifestNumber(std::string_view name) {
  if (!name.starts_with("MANIFEST-")) return std::nullopt;
  return ParseUint(name.substr(std::string_view("MANIFEST-").size()));
}

Listing ListDirectory(const std::string& dir) {
  Listing out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("marker.")) {
      std::optional<Marker> m = ParseMarker(name);
      if (!m) {
        out.bad_markers.push_back(it->path().string());
        continue;
      }
      m->path = it->path().string();
      out.markers.push_back(std::move(*m));
    } else if (name.starts_with("OPTIONS-")) {
      const std::optional<std::uint64_t> n = ParseUint(name.substr(8));
      if (n && (!out.options || *n > out.options_number)) {
        out.options = it->path().string();
        out.options_number = *n;
      }
    } else if (name == "CURRENT") {
      out.has_current = true;
    }
  }
  std::sort(out.markers.begin(), out.markers.end(),
            [](const Marker& a, const Marker& b) { return a.path < b.path; });
  std::sort(out.bad_markers.begin(), out.bad_markers.end());
  return out;
}

MarkerChoice ChooseMarker(const Listing& listing, std::string_view name) {
  MarkerChoice choice;
  for (const Marker& m : listing.markers) {
    if (m.name != name) continue;
    if (!choice.marker || m.iteration > choice.marker->iteration) {
      choice.marker = m;
      choice.tied.clear();
    } else if (m.iteration == choice.marker->iteration) {
      choice.tied.push_back(m.path);
    }
  }
  return choice;
}

std::optional<std::string> ReadCurrent(const std::string& dir, std::vector<Finding>& findings) {
  const std::string path = (fs::path(dir) / "CURRENT").string();
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) {
    findings.push_back(
        Error("no readable CURRENT file: Pebble takes the directory for a "
              "database not yet created"));
    return std::nullopt;
  }
  if (size == 0 || size > 4096) {
    findings.push_back(Error(std::string("CURRENT is ") + (size == 0 ? "empty" : "too large") +
                             " (" + std::to_string(size) +
                             " bytes, at most 4096): Pebble "
                             "refuses to open the database"));
    return std::nullopt;
  }
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.empty() || text.back() != '\n') {
    findings.push_back(
        Error("CURRENT must end in a newline (\"CURRENT file is malformed\")", text.size()));
    return std::nullopt;
  }
  // Pebble trims white space and takes the base name of what is left.
  std::string name(Trim(text));
  name = fs::path(name).filename().string();
  if (!ManifestNumber(name)) {
    findings.push_back(Error("CURRENT names \"" + name.substr(0, 80) +
                                 "\", not a MANIFEST-NNNNNN file (\"MANIFEST name is malformed\")",
                             0));
    return std::nullopt;
  }
  return name;
}

OptionsFile ReadOptionsFile(const std::string& path) {
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) {
    OptionsFile o;
    o.path = path;
    o.findings.push_back(Error("cannot read the OPTIONS file: " + in.status().message() +
                               "; Pebble refuses to open the database"));
    return o;
  }
  return ParseOptions(
      std::string_view(reinterpret_cast<const char*>(in->bytes().data()), in->bytes().size()),
      path);
}

OptionsFile ParseOptions(std::string_view text, const std::string& path) {
  OptionsFile o;
  o.path = path;
  std::string section;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = text.find('\n', i);
    j = j == std::string_view::npos ? text.size() : j + 1;
    const std::uint64_t line_at = i;
    const std::string_view line = Trim(text.substr(i, j - i));
    i = j;
    if (line.empty() || line.front() == ';' || line.front() == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = std::string(line.substr(1, line.size() - 2));
      continue;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      o.findings.push_back(Error("a key=value line, found \"" + std::string(line.substr(0, 47)) +
                                     "\"; Pebble refuses to open the database (\"invalid "
                                     "key=value syntax\")",
                                 line_at));
      return o;
    }
    TakeOption(o, section, std::string(Trim(line.substr(0, eq))),
               std::string(Trim(line.substr(eq + 1))), line_at);
  }
  return o;
}

void TakeOption(OptionsFile& o, const std::string& section, const std::string& key,
                const std::string& value, std::uint64_t at) {
  // RocksDB's column family section carries the comparator and merger under its own names.
  const bool rocksdb = section == "CFOptions \"default\"";
  if (section == "Version") {
    if (key == "pebble_version") o.pebble_version = value;
    if (key == "rocksdb_version") o.rocksdb_version = value;
  } else if (section == "Options" || rocksdb) {
    if (key == (rocksdb ? "comparator" : "comparer")) o.comparer = value;
    if (key == (rocksdb ? "merge_operator" : "merger")) o.merger = value;
    if (key == "key_schema") o.key_schema = value;
    if (key == "format_major_version" && !rocksdb) {
      o.format_major_version = ParseUint(value);
      if (!o.format_major_version) {
        o.findings.push_back(ManifestFinding(
            Severity::kWarning, "format_major_version is not a number: \"" + value + "\"", at));
      }
    }
  } else if (section.starts_with("Level \"") && section.ends_with("\"") && key == "filter_policy") {
    const std::optional<std::uint64_t> level = ParseUint(section.substr(7, section.size() - 8));
    if (level && *level < 7) o.filter_policy[static_cast<int>(*level)] = value;
  }
}

std::optional<std::uint64_t> ParseFormatMajorVersion(const Marker& marker,
                                                     std::vector<Finding>& findings) {
  const std::optional<std::uint64_t> v = ParseUint(marker.value);
  if (!v) {
    findings.push_back(Error("a format major version (a decimal number), found \"" +
                             marker.value.substr(0, 40) +
                             "\": Pebble refuses to open the database"));
    return std::nullopt;
  }
  if (*v == 0) {
    findings.push_back(
        Error("format major version 0 is never written (\"default format major "
              "version should not persisted\"): Pebble refuses to open the "
              "database"));
    return std::nullopt;
  }
  if (*v > kNewestKnown) {
    findings.push_back(ManifestFinding(Severity::kWarning,
                                       "format major version " + std::to_string(*v) +
                                           " is newer than the newest known here (" +
                                           std::to_string(kNewestKnown) +
                                           "): a newer Pebble wrote it; its MANIFEST may hold "
                                           "fields this reader refuses",
                                       std::nullopt));
  }
  return v;
}

}  // namespace bloomcodec::pebble
