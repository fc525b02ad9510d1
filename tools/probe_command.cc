// bloomcodec probe: the original's answer for each key, in input order.
#include <vector>

#include "args.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"

namespace bloomcodec::tool {

namespace {
constexpr FlagSpec kFlags[] = {
    {"--format", true},   {"--keys", true},  {"--key-format", true},
    {"--key-kind", true}, {"--json", false}, {"--writer", true},
};
}  // namespace

Status RunProbe(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, kFlags));
  if (args.positionals().size() != 1) {
    return Status::InvalidArgument(args.positionals().empty()
                                       ? "FILE is required (the filter to probe)"
                                       : "one FILE at a time; found '" +
                                             std::string(args.positionals()[1]) + "' as well");
  }
  bool json = args.Has("--json");
  ProbeOptions options;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.key_kind, ReadKeyKind(args));
  BLOOMCODEC_RETURN_IF_ERROR(args.Required("--keys").status());
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(std::string(args.positionals()[0])));
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, ResolveFormat(args, input));
  if (auto writer = args.Value("--writer")) {
    // Who wrote a filter matters where one policy name has had two hashes: LevelDB tables.
    if (format->name() != "leveldb-table") {
      return Status::InvalidArgument("--writer applies to LevelDB tables (leveldb-table); " +
                                     input.path() + " is " + std::string(format->name()));
    }
    options.writer = std::string(*writer);
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(LoadedKeys loaded, LoadKeys(args));

  std::vector<std::uint8_t> answers(loaded.keys.size());
  {
    Progress progress(ShouldShowProgress(loaded.keys.size(), json));
    progress.Show("probing " + std::to_string(loaded.keys.size()) + " keys");
    BLOOMCODEC_RETURN_IF_ERROR(
        format->Probe(input.bytes(), input.path(), loaded.keys, options, answers));
  }

  std::string text;
  std::size_t positives = 0;
  if (json) {
    text.reserve(answers.size());
    for (std::uint8_t a : answers) {
      positives += a != 0;
      text += a != 0 ? '1' : '0';
    }
    nlohmann::ordered_json doc;
    doc["file"] = input.path();
    doc["format"] = std::string(format->name());
    doc["key_file"] = loaded.source;
    doc["keys"] = answers.size();
    doc["positives"] = positives;
    doc["answers"] = std::move(text);
    return WriteJson(doc);
  }
  text.reserve(answers.size() * 2);
  for (std::uint8_t a : answers) text += a != 0 ? "1\n" : "0\n";
  return WriteStdout(text);
}

}  // namespace bloomcodec::tool
