// bloomcodec convert: lossless re-encodings, rebuilds from keys, table filter rewrites
// (the engine is bloomcodec/convert.h; this file reads the inputs and writes the outputs).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "args.h"
#include "bloomcodec/convert.h"
#include "bloomcodec/output_file.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"
#include "usage.h"

namespace bloomcodec::tool {

namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status MakeDirectory(const std::string& path) {
  if (IsDirectory(path)) return {};
  if (::mkdir(path.c_str(), 0777) != 0) {
    return Status::IoError(path, std::string("cannot create the output directory: ") +
                                     std::strerror(errno));
  }
  return {};
}

// Never write over something we read: the input, the key file, or the index.
Status CheckNotAnInput(const std::string& out, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs) {
    if (in.empty() || in == "-") continue;
    if (out == in || IsSameFile(out, in)) {
      return Status::InvalidArgument("-o " + out + ": refusing to overwrite the input " + in +
                                     "; choose another output");
    }
  }
  return {};
}

Result<const FormatCodec*> InputFormat(const Args& args, const InputFile& input) {
  if (args.Has("--format")) return ResolveFormat(args, input);
  std::string_view path = input.path();
  if (path.ends_with(".gz")) path.remove_suffix(3);
  if (const FormatCodec* f = DetectFormat(path, input.bytes())) return f;
  if (LooksLikeJsonDocument(input.bytes())) return nullptr;  // a dump or a split's list
  return ResolveFormat(args, input);                         // the usage error listing the formats
}

// What the command line asks for, before any input is read.
struct Request {
  std::string in_path;
  std::string out;
  bool split = false;  // -o DIR/ (or an existing directory): one file per filter
  const FormatCodec* to = nullptr;
  std::string keys_path;   // --keys
  std::string index_path;  // --index
  bool json = false;
};

Result<Request> ReadRequest(const Args& args) {
  if (args.positionals().size() != 1) {
    return Status::InvalidArgument(args.positionals().empty()
                                       ? "IN is required (the file to convert)"
                                       : "one IN at a time; found '" +
                                             std::string(args.positionals()[1]) + "' as well");
  }
  if (args.Has("-o") && args.Has("--output")) {
    return Status::InvalidArgument("-o and --output name the same thing; give one");
  }
  std::optional<std::string_view> out_flag = args.Value("-o");
  if (!out_flag) out_flag = args.Value("--output");
  if (!out_flag) return Status::InvalidArgument("-o OUT is required");
  Request r;
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string_view to_name, args.Required("--to"));
  BLOOMCODEC_ASSIGN_OR_RETURN(r.to, FormatByName(to_name));
  r.json = args.Has("--json");
  r.out = std::string(*out_flag);
  if (r.out == "-" && r.json) {
    return Status::InvalidArgument(
        "-o - writes the converted file to standard output, where "
        "--json writes its report: give one");
  }
  r.split = r.out.ends_with("/") || IsDirectory(r.out);
  if (r.split && r.out.size() > 1 && r.out.ends_with("/")) r.out.pop_back();
  r.in_path = std::string(args.positionals()[0]);
  r.keys_path = std::string(args.Value("--keys").value_or(""));
  r.index_path = std::string(args.Value("--index").value_or(""));
  if ((args.Has("--keys") ? 1 : 0) + (args.Has("--index") ? 1 : 0) +
          (args.Has("--from-table") ? 1 : 0) >
      1) {
    return Status::InvalidArgument(
        "give one key source: --keys K, --index INDEX_DB or --from-table");
  }
  if (!r.split) {
    BLOOMCODEC_RETURN_IF_ERROR(CheckNotAnInput(r.out, {r.in_path, r.keys_path, r.index_path}));
  }
  return r;
}

// Writes the files of a conversion (a split into the directory OUT) and reports them.
Result<std::uint64_t> WriteOutputs(const Request& r, const Conversion& result, Document& report) {
  if (r.split) {
    BLOOMCODEC_RETURN_IF_ERROR(MakeDirectory(r.out));
    for (const ConvertedFile& f : result.files) {
      BLOOMCODEC_RETURN_IF_ERROR(CheckNotAnInput(r.out + "/" + f.name, {r.in_path}));
    }
  }
  Document written = Document::array();
  std::uint64_t total = 0;
  for (const ConvertedFile& f : result.files) {
    const std::string path = f.name.empty() ? r.out : r.out + "/" + f.name;
    BLOOMCODEC_RETURN_IF_ERROR(WriteFileAtomically(path, f.bytes));
    Document w;
    w["path"] = path;
    w["bytes"] = f.bytes.size();
    written.push_back(std::move(w));
    total += f.bytes.size();
  }
  report["bytes"] = total;
  if (r.split) report["files"] = std::move(written);
  return total;
}

// The text line: OUT: FORMAT, N bytes[ in M files], HOW[ from INPUT_FORMAT][, K keys].
std::string SummaryLine(const Request& r, const Conversion& result, std::uint64_t total) {
  std::string line = r.out + ": " + std::string(r.to->name()) + ", " + std::to_string(total) +
                     " bytes" +
                     (r.split ? " in " + std::to_string(result.files.size()) + " files" : "") +
                     ", " + std::string(ConversionKindName(result.kind));
  if (result.input_format) line += " from " + std::string(result.input_format->name());
  if (result.keys_used) line += ", " + std::to_string(*result.keys_used) + " keys";
  return line + "\n";
}

}  // namespace

Status RunConvert(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kConvert)));
  BLOOMCODEC_ASSIGN_OR_RETURN(const Request r, ReadRequest(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(r.in_path));
  ConvertInput in;
  in.source = input.path();
  in.bytes = input.bytes();
  BLOOMCODEC_ASSIGN_OR_RETURN(in.format, InputFormat(args, input));

  ConvertOptions options;
  options.to = r.to;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.params, ReadFilterParams(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(options.family, ReadFamilyOptions(args, Subcommand::kConvert));
  options.from_table = args.Has("--from-table");
  options.force = args.Has("--force");
  options.split = r.split;
  // Keys are streamed, whatever their number: the engine reads them a chunk at a time.
  std::unique_ptr<KeyStream> keys;
  if (args.Has("--keys")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(keys, OpenKeys(args));
  } else if (args.Has("--index")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(keys, OpenIndexKeys(r.index_path, in.format));
  }
  options.keys = keys.get();

  Conversion result;
  {
    // A rebuild hashes every key; a table rewrite reads every block: long work for large inputs.
    const std::size_t items =
        std::max(keys ? FileBytes(r.keys_path.empty() ? r.index_path : r.keys_path) / 16 : 0,
                 in.bytes.size() / 16);
    Progress progress(ShouldShowProgress(items, r.json));
    progress.Show("converting " + in.source + " to " + std::string(r.to->name()));
    BLOOMCODEC_ASSIGN_OR_RETURN(result, Convert(in, options));
  }

  Document report;
  report["schema_version"] = kConvertJsonSchemaVersion;
  report["input"] = input.path();
  report["input_format"] = result.input_format ? std::string(result.input_format->name()) : "";
  report["output"] = r.out;
  report["format"] = std::string(r.to->name());
  report["how"] = std::string(ConversionKindName(result.kind));
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t total, WriteOutputs(r, result, report));
  if (result.keys_used) report["keys"] = *result.keys_used;
  if (keys) report["key_source"] = keys->source();
  if (options.from_table) report["key_source"] = "table";
  report["warnings"] = result.warnings;

  for (const std::string& w : result.warnings) {
    std::fputs(("bloomcodec convert: warning: " + w + "\n").c_str(), stderr);
  }
  if (r.json) return WriteJson(report);
  if (r.out == "-") return Status();
  return WriteStdout(SummaryLine(r, result, total));
}

}  // namespace bloomcodec::tool
