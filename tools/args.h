// Command-line arguments of one subcommand: flags declared up front, positionals in order.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(Args args,
//                               ParseArgs(argv_after_subcommand, SubcommandFlags(Subcommand::kHash)));
//   std::optional<std::string_view> keys = args.Value("--keys");
//
// Which flags a subcommand takes is declared in one place (command_flags.h: the command line's
// own, and those of the format families).
//
// Flags take their value as the next argument or after '=' (--keys=k.txt). A flag that is not
// declared, a value that is missing, or a flag given twice is a usage error naming the flag:
// guessing what the user meant could build the wrong filter silently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::tool {

struct FlagSpec {
  std::string_view name;  // "--keys"; "-o" style short names are declared the same way
  bool takes_value;
};

class Args {
 public:
  bool Has(std::string_view flag) const;
  std::optional<std::string_view> Value(std::string_view flag) const;
  const std::vector<std::string_view>& positionals() const { return positionals_; }
  // Every flag given, in order: (name, value), the value "" for a flag that takes none.
  const std::vector<std::pair<std::string_view, std::string_view>>& flags() const { return flags_; }

  // The value of a flag that must be present.
  Result<std::string_view> Required(std::string_view flag) const;

  // Typed readers; a value that does not parse completely is a usage error naming the flag.
  Result<std::optional<double>> JavaDouble(std::string_view flag) const;
  Result<std::optional<double>> Decimal(std::string_view flag) const;
  Result<std::optional<std::int64_t>> Int64(std::string_view flag) const;
  Result<std::optional<std::int32_t>> Int32(std::string_view flag) const;

 private:
  friend Result<Args> ParseArgs(std::span<const std::string_view>, std::span<const FlagSpec>);
  std::vector<std::pair<std::string_view, std::string_view>> flags_;  // name, value ("" if none)
  std::vector<std::string_view> positionals_;
};

// Everything after `--` is positional.
Result<Args> ParseArgs(std::span<const std::string_view> argv, std::span<const FlagSpec> specs);

// The flags shared by several subcommands, read and checked.
Result<FilterParams> ReadFilterParams(const Args& args);
Result<KeyFormat> ReadKeyFormat(const Args& args);

}  // namespace bloomcodec::tool
