// bloomcodec dump: everything in a filter file as one JSON document, which `convert` turns back
// into the same bytes.
#include "args.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"

namespace bloomcodec::tool {

Status RunDump(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kDump)));
  if (args.positionals().size() != 1) {
    return Status::InvalidArgument(args.positionals().empty()
                                       ? "FILE is required"
                                       : "one FILE at a time; found '" +
                                             std::string(args.positionals()[1]) + "' as well");
  }
  // JSON is the only dump there is; the flag is required so that a later text form can differ.
  if (!args.Has("--json")) return Status::InvalidArgument("dump writes JSON only: give --json");
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(std::string(args.positionals()[0])));
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, ResolveFormat(args, input));
  BLOOMCODEC_ASSIGN_OR_RETURN(Document doc, format->Dump(input.bytes(), input.path()));
  return WriteJson(doc);
}

}  // namespace bloomcodec::tool
