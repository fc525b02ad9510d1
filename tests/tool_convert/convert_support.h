// Helpers of the inspect / dump / convert tests: the fixture files of each format, and JSON runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace bloomcodec::testing {

struct FixtureFile {
  std::string relative;  // under fixtures/
  std::string format;
};

// Every filter file of the bundled golden data with its format (tables and filter blocks too).
std::vector<FixtureFile> AllFixtureFilters();

// Runs the CLI and parses its standard output as JSON; a failed run or bad JSON fails the test.
nlohmann::ordered_json RunJson(const std::vector<std::string>& args);

// The file names of a fixtures/ subfolder ending in `suffix`, sorted.
std::vector<std::string> FixtureNames(const std::string& folder, const std::string& suffix);

}  // namespace bloomcodec::testing
