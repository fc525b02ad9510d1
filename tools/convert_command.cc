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
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"
#include "usage.h"

namespace bloomcodec::tool {

namespace {
constexpr FlagSpec kFlags[] = {
    {"--format", true},
    {"--to", true},
    {"-o", true},
    {"--output", true},
    {"--keys", true},
    {"--key-format", true},
    {"--index", true},
    {"--from-table", false},
    {"--fp-chance", true},
    {"--buckets-per-element", true},
    {"--bits-per-key", true},
    {"--expected-keys", true},
    {"--no-filter", false},
    {"--legacy-1.17", false},
    {"--key-kind", true},
    {"--writer", true},
    {"--force", false},
    {"--json", false},
};

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
  if (LooksLikeJsonDocument(input.bytes())) return nullptr;  // a dump or a split manifest
  return ResolveFormat(args, input);                         // the usage error listing the formats
}

}  // namespace

Status RunConvert(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, kFlags));
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
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string_view to_name, args.Required("--to"));
  BLOOMCODEC_ASSIGN_OR_RETURN(const FormatCodec* to, FormatByName(to_name));
  const bool json = args.Has("--json");
  std::string out(*out_flag);
  if (out == "-" && json) {
    return Status::InvalidArgument(
        "-o - writes the converted file to standard output, where "
        "--json writes its report: give one");
  }
  const bool split = out.ends_with("/") || IsDirectory(out);
  if (split && out.size() > 1 && out.ends_with("/")) out.pop_back();

  const std::string in_path(args.positionals()[0]);
  const std::string keys_path(args.Value("--keys").value_or(""));
  const std::string index_path(args.Value("--index").value_or(""));
  if ((args.Has("--keys") ? 1 : 0) + (args.Has("--index") ? 1 : 0) +
          (args.Has("--from-table") ? 1 : 0) >
      1) {
    return Status::InvalidArgument(
        "give one key source: --keys K, --index INDEX_DB or --from-table");
  }
  if (!split) BLOOMCODEC_RETURN_IF_ERROR(CheckNotAnInput(out, {in_path, keys_path, index_path}));

  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile input, InputFile::Open(in_path));
  ConvertInput in;
  in.source = input.path();
  in.bytes = input.bytes();
  BLOOMCODEC_ASSIGN_OR_RETURN(in.format, InputFormat(args, input));

  ConvertOptions options;
  options.to = to;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.params, ReadFilterParams(args));
  BLOOMCODEC_ASSIGN_OR_RETURN(options.key_kind, ReadKeyKind(args));
  options.from_table = args.Has("--from-table");
  options.no_filter = args.Has("--no-filter");
  options.legacy_v117 = args.Has("--legacy-1.17");
  options.force = args.Has("--force");
  if (auto writer = args.Value("--writer")) {
    // Who wrote a filter matters where one policy name has had two hashes: LevelDB tables.
    if (!in.format || in.format->name() != "leveldb-table") {
      return Status::InvalidArgument(
          "--writer applies to LevelDB tables (leveldb-table); " + in.source + " is " +
          (in.format ? std::string(in.format->name()) : "a JSON document"));
    }
    options.writer = std::string(*writer);
  }
  options.split = split;
  // Keys are streamed, whatever their number: the engine reads them a chunk at a time.
  std::unique_ptr<KeyStream> keys;
  if (args.Has("--keys")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(keys, OpenKeys(args));
  } else if (args.Has("--index")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(keys, OpenIndexKeys(index_path, in.format));
  }
  options.keys = keys.get();

  Conversion result;
  {
    // A rebuild hashes every key; a table rewrite reads every block: long work for large inputs.
    const std::size_t items =
        std::max(keys ? FileBytes(keys_path.empty() ? index_path : keys_path) / 16 : 0,
                 in.bytes.size() / 16);
    Progress progress(ShouldShowProgress(items, args.Has("--json")));
    progress.Show("converting " + in.source + " to " + std::string(to->name()));
    BLOOMCODEC_ASSIGN_OR_RETURN(result, Convert(in, options));
  }

  Document report;
  report["input"] = input.path();
  report["input_format"] = result.input_format ? std::string(result.input_format->name()) : "";
  report["output"] = out;
  report["format"] = std::string(to->name());
  report["how"] = std::string(ConversionKindName(result.kind));
  Document written = Document::array();
  std::uint64_t total = 0;
  if (split) {
    BLOOMCODEC_RETURN_IF_ERROR(MakeDirectory(out));
    for (const ConvertedFile& f : result.files) {
      const std::string path = out + "/" + f.name;
      BLOOMCODEC_RETURN_IF_ERROR(CheckNotAnInput(path, {in_path}));
    }
  }
  for (const ConvertedFile& f : result.files) {
    const std::string path = f.name.empty() ? out : out + "/" + f.name;
    BLOOMCODEC_RETURN_IF_ERROR(WriteFileAtomically(path, f.bytes));
    Document w;
    w["path"] = path;
    w["bytes"] = f.bytes.size();
    written.push_back(std::move(w));
    total += f.bytes.size();
  }
  report["bytes"] = total;
  if (split) report["files"] = std::move(written);
  if (result.keys_used) report["keys"] = *result.keys_used;
  if (keys) report["key_source"] = keys->source();
  if (options.from_table) report["key_source"] = "table";
  report["warnings"] = result.warnings;

  for (const std::string& w : result.warnings) {
    std::fputs(("bloomcodec convert: warning: " + w + "\n").c_str(), stderr);
  }
  if (json) return WriteJson(report);
  if (out == "-") return Status();
  std::string line = out + ": " + std::string(to->name()) + ", " + std::to_string(total) +
                     " bytes" +
                     (split ? " in " + std::to_string(result.files.size()) + " files" : "") + ", " +
                     std::string(ConversionKindName(result.kind));
  if (result.input_format) line += " from " + std::string(result.input_format->name());
  if (result.keys_used) line += ", " + std::to_string(*result.keys_used) + " keys";
  return WriteStdout(line + "\n");
}

}  // namespace bloomcodec::tool
