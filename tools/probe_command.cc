// bloomcodec probe: the original's answer for each key, in input order.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"

namespace bloomcodec::tool {

Status RunProbe(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kProbe)));
  if (args.positionals().size() != 1) {
    return Status::InvalidArgument(args.positionals().empty()
                                       ? "FILE is required (the filter to probe)"
                                       : "one FILE at a time; found '" +
                                             std::string(args.positionals()[1]) + "' as well");
  }
  bool json = args.Has("--json");
  ProbeOptions options;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.family, ReadFamilyOptions(args, Subcommand::kProbe));
  BLOOMCODEC_RETURN_IF_ERROR(args.Required("--keys").status());
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(std::string(args.positionals()[0])));
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, ResolveFormat(args, input));
  BLOOMCODEC_RETURN_IF_ERROR(CheckFamilyFlags(Subcommand::kProbe, options.family,
                                              {.path = input.path(), .format = format}));
  // Streamed: the key file is read a chunk at a time (first a pass that finds a malformed line
  // before anything is printed) through the file opened once. Only the answers are kept, a byte
  // a key, so that an error leaves no partial output.
  BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<KeyStream> keys, OpenKeys(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t count, CountKeys(*keys));
  std::string answers;  // '1' / '0' per key, in input order
  std::size_t positives = 0;
  {
    Progress progress(ShouldShowProgress(count, json));
    progress.Show("probing " + std::to_string(count) + " keys");
    BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<FileProbe> probe,
                                format->OpenProbe(input.bytes(), input.path(), options));
    std::vector<std::uint8_t> chunk_answers;
    answers.reserve(count);
    BLOOMCODEC_RETURN_IF_ERROR(keys->ForEachChunk([&](std::span<const ByteSpan> chunk) {
      chunk_answers.assign(chunk.size(), 0);
      BLOOMCODEC_RETURN_IF_ERROR(probe->Probe(chunk, chunk_answers));
      for (std::uint8_t a : chunk_answers) {
        positives += a != 0;
        answers += a != 0 ? '1' : '0';
      }
      return Status();
    }));
  }

  if (json) {
    nlohmann::ordered_json doc;
    doc["file"] = input.path();
    doc["format"] = std::string(format->name());
    doc["key_file"] = keys->source();
    doc["keys"] = answers.size();
    doc["positives"] = positives;
    doc["answers"] = std::move(answers);
    return WriteJson(doc);
  }
  // One line per key, written a block at a time.
  std::string text;
  for (std::size_t at = 0; at < answers.size(); at += 1 << 16) {
    text.clear();
    const std::size_t end = std::min(answers.size(), at + (std::size_t{1} << 16));
    for (std::size_t i = at; i < end; ++i) {
      text += answers[i];
      text += '\n';
    }
    BLOOMCODEC_RETURN_IF_ERROR(WriteStdout(text));
  }
  return Status();
}

}  // namespace bloomcodec::tool
