// bloomcodec build: keys + parameters -> the original's filter file.
#include "args.h"
#include "bloomcodec/output_file.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"

namespace bloomcodec::tool {

Status RunBuild(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kBuild)));
  if (!args.positionals().empty()) {
    return Status::InvalidArgument("unexpected argument '" + std::string(args.positionals()[0]) +
                                   "' (build reads --keys and writes -o OUT)");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* format, RequiredFormat(args));
  std::optional<std::string_view> out = args.Value("-o");
  if (!out) out = args.Value("--output");
  if (!out) return Status::InvalidArgument("-o OUT is required");
  if (args.Has("-o") && args.Has("--output")) {
    return Status::InvalidArgument("-o and --output name the same thing; give one");
  }
  if (*out == "-" && args.Has("--json")) {
    return Status::InvalidArgument("--json and -o - both want standard output; give one");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterParams params, ReadFilterParams(args));
  std::string out_path(*out);
  std::string_view keys_path = args.Value("--keys").value_or("");
  // Checked before reading anything: the key file must survive a mistyped -o.
  if (out_path != "-" && keys_path != "-" && !keys_path.empty() &&
      (out_path == keys_path || IsSameFile(out_path, std::string(keys_path)))) {
    return Status::InvalidArgument("-o " + out_path +
                                   ": refusing to overwrite the key file; choose another output");
  }
  // Streamed: one pass counts the keys (and finds a malformed line before anything is built),
  // a second adds them; a filter sized from the count alone holds only its bits.
  BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<KeyStream> keys, OpenKeys(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t count, CountKeys(*keys));

  ByteVector file;
  {
    Progress progress(ShouldShowProgress(count, false));
    progress.Show("building " + std::string(format->name()) + " over " + std::to_string(count) +
                  " keys");
    BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<FilterBuilder> builder,
                                format->StartBuild(count, params));
    BLOOMCODEC_RETURN_IF_ERROR(
        keys->ForEachChunk([&](std::span<const ByteSpan> chunk) { return builder->Add(chunk); }));
    BLOOMCODEC_ASSIGN_OR_RETURN(file, builder->Finish());
  }
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileAtomically(out_path, file));
  if (out_path == "-") return Status();  // standard output carries the filter itself
  if (!args.Has("--json")) {
    return WriteStdout(out_path + ": " + std::string(format->name()) + ", " +
                       std::to_string(file.size()) + " bytes, " + std::to_string(count) +
                       " keys\n");
  }
  nlohmann::ordered_json doc;
  doc["output"] = out_path;
  doc["format"] = std::string(format->name());
  doc["key_file"] = keys->source();
  doc["keys"] = count;
  doc["file_bytes"] = file.size();  // as built, before any gzip of a .gz OUT
  return WriteJson(doc);
}

}  // namespace bloomcodec::tool
