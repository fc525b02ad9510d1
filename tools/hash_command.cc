// bloomcodec hash: the format's hash line for each key.
#include <charconv>

#include "args.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"

namespace bloomcodec::tool {

namespace {

// The tab-separated decimals of a hash line as JSON integers: signed where the format prints
// signed values (Cassandra), unsigned otherwise (LevelDB's 32-bit hash), exact either way.
nlohmann::ordered_json HashValues(std::string_view line) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  while (!line.empty()) {
    const std::size_t tab = line.find('\t');
    const std::string_view field = line.substr(0, tab);
    const char* end = field.data() + field.size();
    if (field.starts_with('-')) {
      std::int64_t v = 0;
      std::from_chars(field.data(), end, v);
      values.push_back(v);
    } else {
      std::uint64_t v = 0;
      std::from_chars(field.data(), end, v);
      values.push_back(v);
    }
    line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
  }
  return values;
}
}  // namespace

Status RunHash(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kHash)));
  if (!args.positionals().empty()) {
    return Status::InvalidArgument("unexpected argument '" + std::string(args.positionals()[0]) +
                                   "' (hash reads its keys from --keys)");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, RequiredFormat(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(LoadedKeys loaded, LoadKeys(args));
  const bool json = args.Has("--json");
  nlohmann::ordered_json hashes = nlohmann::ordered_json::array();
  std::string out;
  if (!json) out.reserve(loaded.keys.size() * 24);
  std::string line;  // reused: no allocation per key once it has grown
  for (std::size_t i = 0; i < loaded.keys.size(); ++i) {
    line.clear();
    BLOOMCODEC_RETURN_IF_ERROR(format->Hash(loaded.keys[i], line));
    if (json) {
      hashes.push_back(HashValues(line));
    } else {
      out += line;
      out += '\n';
    }
  }
  if (!json) return WriteStdout(out);
  nlohmann::ordered_json doc;
  doc["format"] = std::string(format->name());
  doc["key_file"] = loaded.source;
  doc["keys"] = loaded.keys.size();
  doc["hashes"] = std::move(hashes);
  return WriteJson(doc);
}

}  // namespace bloomcodec::tool
