// Shared by the verify process tests: data directories built from the golden fixtures, and the
// --json document of a run.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "cli/cli_runner.h"

namespace bloomcodec::testing {

using Json = nlohmann::json;

// Writes bytes to `path`, creating its folders.
void WriteFileAt(const std::string& path, ByteSpan bytes);

// One SSTable of a test data directory: `dir`/`prefix`Filter.db from a golden filter and
// `dir`/`prefix`Index.db holding `keys` in the 1.0 layout.
void PutSstable(const std::string& dir, const std::string& prefix,
                const std::string& filter_fixture, const KeyList& keys);

// Runs `bloomcodec verify ARGS --json`, checks the exit status and parses standard output.
Json VerifyJson(std::vector<std::string> args, int expected_exit);

// The report of the file whose path ends with `suffix` (a test failure when there is none).
const Json& FileEndingWith(const Json& doc, const std::string& suffix);
// The kinds of a file report's findings, in order.
std::vector<std::string> Kinds(const Json& file);

// 1 - prod(1 - fp_rate) over the files of `group` in the document.
double CombinedFromFiles(const Json& doc, const std::string& group);

}  // namespace bloomcodec::testing
