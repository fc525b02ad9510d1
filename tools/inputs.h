// Reading what a subcommand works on: key files (or standard input) and filter files.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "args.h"
#include "bloomcodec/format.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// The keys of `--keys PATH` ("-" = standard input) in `--key-format`. Errors name the file and
// the line of a malformed key.
struct LoadedKeys {
  std::string source;  // the path, or "<stdin>"
  KeyList keys;
};
Result<LoadedKeys> LoadKeys(const Args& args);
// The same keys as a stream (verify, convert): a key file of any size is read in chunks.
Result<std::unique_ptr<KeyStream>> OpenKeys(const Args& args);
// The size of a file (0 when it cannot be read, or for "-"): how long reading it will take.
std::size_t FileBytes(const std::string& path);

// The input's format: --format if given, else the one format that claims the file (by its name,
// without a trailing .gz, and its bytes); otherwise a usage error listing the names.
Result<const FormatCodec*> ResolveFormat(const Args& args, const InputFile& input);
// The format of a subcommand without an input file to look at: --format is required.
Result<const FormatCodec*> RequiredFormat(const Args& args);

}  // namespace bloomcodec::tool
