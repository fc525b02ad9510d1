// Internal to formats/pebble/database*.cc: the steps that find a Pebble database's MANIFEST
// (database_identity.cc), shared with database.cc, which reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "manifest/manifest.h"
#include "pebble/database.h"

namespace bloomcodec::pebble {

// An error finding about the database's own files (its MANIFEST, markers, OPTIONS).
inline Finding Error(std::string message, std::optional<std::uint64_t> at = std::nullopt) {
  return manifest::ManifestFinding(Severity::kError, std::move(message), at);
}

// The directory entries that say how the database names its MANIFEST.
struct Listing {
  std::vector<Marker> markers;           // every marker.* file that parses, by path
  std::vector<std::string> bad_markers;  // marker.* files that do not parse, by path
  std::optional<std::string> options;    // the OPTIONS-NNNNNN of the highest number
  std::uint64_t options_number = 0;
  bool has_current = false;
};

Listing ListDirectory(const std::string& dir);

// The marker of `name` with the highest iteration, and the other files of that iteration (the
// first of them in path order is chosen; Pebble takes whichever the directory lists first).
struct MarkerChoice {
  std::optional<Marker> marker;
  std::vector<std::string> tied;
};
MarkerChoice ChooseMarker(const Listing& listing, std::string_view name);

// The number of MANIFEST-NNNNNN (Pebble's base.ParseFilename), nothing for another name.
std::optional<std::uint64_t> ManifestNumber(std::string_view name);

// CURRENT as Pebble v1 reads it (readCurrentFile): 1 to 4096 bytes ending in a newline, white
// space trimmed, the base name a MANIFEST's. Nothing (and a finding) otherwise.
std::optional<std::string> ReadCurrent(const std::string& dir, std::vector<Finding>& findings);

// The format major version a format-version marker holds: nothing (and an error finding) when
// Pebble refuses it; a warning for a version newer than the table in database_identity.cc.
std::optional<std::uint64_t> ParseFormatMajorVersion(const Marker& marker,
                                                     std::vector<Finding>& findings);

// An OPTIONS file; a line Pebble's parser refuses ends the reading with an error finding at the
// line's offset. ParseOptions reads the file's text.
OptionsFile ReadOptionsFile(const std::string& path);
OptionsFile ParseOptions(std::string_view text, const std::string& path);

// marker.<name>.<iteration>.<value> (the value may hold dots or be empty); nothing for any other
// name starting "marker.", which Pebble refuses. `path` is left empty.
std::optional<Marker> ParseMarker(const std::string& file);

// One `key=value` of section `section` (at byte `at`) into `o`.
void TakeOption(OptionsFile& o, const std::string& section, const std::string& key,
                const std::string& value, std::uint64_t at);

}  // namespace bloomcodec::pebble
