// bloomcodec verify: checks filter files and whole data directories (the engine is the
// library's, bloomcodec/verify.h); this file parses flags, loads keys, shows progress and prints.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "args.h"
#include "bloomcodec/verify.h"
#include "command_flags.h"
#include "commands.h"
#include "inputs.h"
#include "output.h"
#include "progress.h"
#include "prometheus.h"
#include "usage.h"

namespace bloomcodec::tool {

namespace {
constexpr std::uintmax_t kLargeFileBytes = 64 << 20;

bool LargeInput(const std::vector<std::string>& paths) {
  std::error_code ec;
  for (const std::string& p : paths) {
    const std::uintmax_t size = std::filesystem::file_size(p, ec);
    if (!ec && size >= kLargeFileBytes) return true;
  }
  return false;
}

}  // namespace

Result<bool> RunVerify(std::span<const std::string_view> argv) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Args args, ParseArgs(argv, SubcommandFlags(Subcommand::kVerify)));
  if (args.positionals().empty()) {
    return Status::InvalidArgument("PATH is required (a filter file, a table or a data directory)");
  }
  const bool json = args.Has("--json");
  const int sources = args.Has("--keys") + args.Has("--index") + args.Has("--from-table");
  if (sources > 1) {
    return Status::InvalidArgument("--keys, --index and --from-table are alternatives; give one");
  }
  const std::string prometheus(args.Value("--prometheus").value_or(""));
  if (args.Has("--prometheus") && (prometheus.empty() || prometheus == "-")) {
    return Status::InvalidArgument(
        "--prometheus needs a file name (node_exporter's collector reads files)");
  }
  if (args.Has("--key-format") && !args.Has("--keys")) {
    return Status::InvalidArgument("--key-format describes --keys, which is missing");
  }
  VerifyOptions options;
  BLOOMCODEC_ASSIGN_OR_RETURN(options.family, ReadFamilyOptions(args, Subcommand::kVerify));
  if (auto name = args.Value("--format")) {
    BLOOMCODEC_ASSIGN_OR_RETURN(options.format, FormatByName(*name));
  }
  std::vector<std::string> paths(args.positionals().begin(), args.positionals().end());
  if (sources > 0 && paths.size() > 1) {
    return Status::InvalidArgument("--keys, --index and --from-table describe one file; found " +
                                   std::to_string(paths.size()) + " paths");
  }
  std::unique_ptr<KeyStream> keys;
  if (args.Has("--keys")) {
    // Streamed: a key file of any size is read a chunk at a time. One pass first, so that a
    // malformed line is bad input (exit 2) before anything is judged.
    BLOOMCODEC_ASSIGN_OR_RETURN(keys, OpenKeys(args));
    BLOOMCODEC_RETURN_IF_ERROR(CountKeys(*keys).status());
    options.key_source = KeySource::kKeyList;
    options.keys = keys.get();
    options.keys_source_name = keys->source();
  } else if (auto index = args.Value("--index")) {
    options.key_source = KeySource::kIndexDb;
    options.index_path = std::string(*index);
  } else if (args.Has("--from-table")) {
    options.key_source = KeySource::kFromTable;
  }

  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<VerifyTask> tasks, PlanVerify(paths, options));
  VerifyReport report;
  {
    // A terminal sees how far a directory (or one big file) has got; pipes and --json see
    // nothing. A single small file finishes before a line would be worth drawing.
    const bool show = !json && ::isatty(2) == 1 && (tasks.size() > 1 || LargeInput(paths));
    Progress progress(show);
    progress.Show("verifying " + std::to_string(tasks.size()) +
                  (tasks.size() == 1 ? " file" : " files"));
    report.files = RunVerifyTasks(tasks, 0, [&](std::size_t done, std::size_t total) {
      progress.Show("verified " + std::to_string(done) + " of " + std::to_string(total) + " files");
    });
  }
  report.summary = Summarize(report.files);
  // The metrics first: when they cannot be written, nothing is printed (exit 2).
  if (!prometheus.empty()) BLOOMCODEC_RETURN_IF_ERROR(WritePrometheus(prometheus, report));
  if (json) {
    BLOOMCODEC_RETURN_IF_ERROR(WriteJson(VerifyReportJson(report)));
  } else {
    BLOOMCODEC_RETURN_IF_ERROR(WriteStdout(VerifyReportText(report)));
  }
  return report.summary.errors == 0;
}

}  // namespace bloomcodec::tool
