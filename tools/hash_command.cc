// bloomcodec hash: the format's hash line for each key.
#include "args.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"

namespace bloomcodec::tool {

namespace {
constexpr FlagSpec kFlags[] = {{"--format", true}, {"--keys", true}, {"--key-format", true}};
}  // namespace

Status RunHash(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, kFlags));
  if (!args.positionals().empty()) {
    return Status::InvalidArgument("unexpected argument '" + std::string(args.positionals()[0]) +
                                   "' (hash reads its keys from --keys)");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, RequiredFormat(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(LoadedKeys loaded, LoadKeys(args));
  std::string out;
  out.reserve(loaded.keys.size() * 24);
  std::string line;  // reused: no allocation per key once it has grown
  for (std::size_t i = 0; i < loaded.keys.size(); ++i) {
    line.clear();
    BLOOMCODEC_RETURN_IF_ERROR(format->Hash(loaded.keys[i], line));
    out += line;
    out += '\n';
  }
  return WriteStdout(out);
}

}  // namespace bloomcodec::tool
