// The command line's own parsing (tools/numbers.cc, tools/args.cc): the input is a list of
// arguments separated by NUL bytes. Each argument goes through the Java number parsers, whose
// answers must agree with each other (Integer.parseInt within Long.parseLong within
// Double.parseDouble, a plain decimal within Double.parseDouble) and round-trip through their
// printed form; the whole list goes through ParseArgs with the flags of `convert` (the command
// line's own and the families') and the typed readers and the families' parsers, which either
// give a value or a usage error, never a crash.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "command_flags.h"
#include "fuzz_support.h"
#include "numbers.h"

using namespace bloomcodec;

namespace {

std::uint64_t Bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

void CheckNumbers(std::string_view text) {
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  double java = 0, decimal = 0;
  const bool is_i32 = tool::ParseInt32(text, i32);
  const bool is_i64 = tool::ParseInt64(text, i64);
  const bool is_java = tool::ParseJavaDouble(text, java);
  const bool is_decimal = tool::ParseDecimal(text, decimal);
  if (is_i32) FUZZ_CHECK(is_i64 && i64 == i32);
  if (is_i64) {
    std::int64_t again = 0;
    FUZZ_CHECK(tool::ParseInt64(std::to_string(i64), again) && again == i64);
    // Double.parseDouble reads every spelling Long.parseLong reads, correctly rounded.
    FUZZ_CHECK(is_java && java == static_cast<double>(i64));
  }
  if (is_decimal) FUZZ_CHECK(is_java && Bits(java) == Bits(decimal));
  if (is_java && std::isfinite(java)) {
    char printed[64];
    std::snprintf(printed, sizeof printed, "%.17g", java);
    double again = 0;
    FUZZ_CHECK(tool::ParseJavaDouble(printed, again) && Bits(again) == Bits(java));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> argv;
  std::size_t start = 0;
  while (start <= input.size()) {
    std::size_t end = input.find('\0', start);
    if (end == std::string::npos) end = input.size();
    argv.emplace_back(input.data() + start, end - start);
    start = end + 1;
  }
  for (std::string_view arg : argv) {
    CheckNumbers(arg);
    // A flag's value after '=' is parsed the same way.
    const std::size_t eq = arg.find('=');
    if (eq != std::string_view::npos) CheckNumbers(arg.substr(eq + 1));
  }
  // convert takes the most flags, the families' own among them.
  static const std::vector<tool::FlagSpec> flags = tool::SubcommandFlags(Subcommand::kConvert);
  Result<tool::Args> args = tool::ParseArgs(argv, flags);
  if (!args.ok()) {
    FUZZ_CHECK(!args.status().ToString().empty());
    return 0;
  }
  for (const tool::FlagSpec& flag : flags) {
    const bool has = args->Has(flag.name);
    const std::optional<std::string_view> value = args->Value(flag.name);
    if (value) FUZZ_CHECK(has);
    Result<std::string_view> required = args->Required(flag.name);
    if (!has) FUZZ_CHECK(!required.ok());
    (void)args->JavaDouble(flag.name);
    (void)args->Decimal(flag.name);
    (void)args->Int64(flag.name);
    (void)args->Int32(flag.name);
  }
  FUZZ_CHECK(args->positionals().size() <= argv.size());
  (void)tool::ReadFilterParams(*args);
  (void)tool::ReadKeyFormat(*args);
  (void)tool::ReadFamilyOptions(*args, Subcommand::kConvert);
  return 0;
}
