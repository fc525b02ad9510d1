// bloomcodec: the command line. Dispatches to a subcommand and turns its Status into the exit
// status of the contract (docs/cli.md): 0 success, 1 a check found a problem, 2 bad usage or
// bad input, with exactly one message on standard error.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/output_file.h"
#include "commands.h"
#include "output.h"
#include "usage.h"

#ifndef BLOOMCODEC_VERSION
#define BLOOMCODEC_VERSION "unknown"
#endif

namespace {

using bloomcodec::Status;
namespace tool = bloomcodec::tool;

constexpr int kExitOk = 0;
constexpr int kExitUsageOrInput = 2;

using Command = Status (*)(std::span<const std::string_view>);

// A subcommand whose check can fail (verify, repair): true = exit 0, false = exit 1.
using CheckCommand = bloomcodec::Result<bool> (*)(std::span<const std::string_view>);
constexpr int kExitCheckFailed = 1;

struct Subcommand {
  std::string_view name;
  Command run;  // null: reserved in the contract, not implemented yet
  CheckCommand check = nullptr;
};

constexpr Subcommand kSubcommands[] = {
    {"build", tool::RunBuild},
    {"probe", tool::RunProbe},
    {"hash", tool::RunHash},
    {"size", tool::RunSize},
    {"inspect", tool::RunInspect},
    {"verify", nullptr, tool::RunVerify},
    {"convert", tool::RunConvert},
    {"dump", tool::RunDump},
    {"repair", nullptr, tool::RunRepair},
};

int Fail(std::string_view subcommand, const std::string& message) {
  std::string line = "bloomcodec";
  if (!subcommand.empty()) line += " " + std::string(subcommand);
  line += ": " + message + "\n";
  std::fputs(line.c_str(), stderr);
  return kExitUsageOrInput;
}

int Print(const std::string& text) {
  Status s = tool::WriteStdout(text);
  return s.ok() ? kExitOk : Fail("", s.ToString());
}

int Help(std::string_view subcommand) {
  if (subcommand.empty()) return Print(tool::OverviewHelp());
  std::string text = tool::SubcommandHelp(subcommand);
  if (text.empty()) {
    return Fail("help",
                "unknown subcommand '" + std::string(subcommand) + "' (see 'bloomcodec --help')");
  }
  return Print(text);
}

bool AsksForHelp(std::span<const std::string_view> args) {
  for (std::string_view a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Ctrl-C or a kill during `build -o OUT` must not leave OUT's temporary file behind.
  bloomcodec::InstallInterruptCleanup();
  std::vector<std::string_view> args(argv + (argc > 0 ? 1 : argc), argv + argc);
  if (args.empty()) {
    std::fputs(tool::OverviewHelp().c_str(), stderr);
    return kExitUsageOrInput;
  }
  std::string_view first = args[0];
  if (first == "--help" || first == "-h") return Help("");
  if (first == "--version") return Print("bloomcodec " BLOOMCODEC_VERSION "\n");
  if (first == "help") {
    if (args.size() > 2) return Fail("help", "one subcommand at a time");
    return Help(args.size() == 2 ? args[1] : "");
  }
  std::span<const std::string_view> rest(args.begin() + 1, args.end());
  for (const Subcommand& sub : kSubcommands) {
    if (sub.name != first) continue;
    if (AsksForHelp(rest)) return Help(sub.name);
    if (!sub.run && !sub.check) return Fail(sub.name, "not implemented yet");
    Status status;
    if (sub.check) {
      bloomcodec::Result<bool> clean = sub.check(rest);
      if (clean.ok()) return *clean ? kExitOk : kExitCheckFailed;
      status = clean.status();
    } else {
      status = sub.run(rest);
    }
    if (status.ok()) return kExitOk;
    std::string message = status.ToString();
    if (status.code() == bloomcodec::StatusCode::kInvalidArgument && status.file().empty()) {
      message += " (see 'bloomcodec help " + std::string(sub.name) + "')";
    }
    return Fail(sub.name, message);
  }
  if (first.starts_with("-"))
    return Fail("", "unknown flag " + std::string(first) + " (see 'bloomcodec --help')");
  return Fail("", "unknown subcommand '" + std::string(first) + "' (see 'bloomcodec --help')");
}
