// The subcommands of `bloomcodec`. Each parses its own flags, reads its inputs, calls one
// FormatCodec and prints; none of them knows anything about a particular format.
#pragma once

#include <span>
#include <string_view>

#include "bloomcodec/status.h"

namespace bloomcodec::tool {

// `args` are the arguments after the subcommand's name. A non-OK status is printed by main()
// and ends the process with exit status 2.
Status RunBuild(std::span<const std::string_view> args);
Status RunProbe(std::span<const std::string_view> args);
Status RunHash(std::span<const std::string_view> args);
Status RunSize(std::span<const std::string_view> args);
Status RunInspect(std::span<const std::string_view> args);
Status RunConvert(std::span<const std::string_view> args);
Status RunDump(std::span<const std::string_view> args);
// verify: true when nothing is wrong (exit 0), false when a check found an error (exit 1).
Result<bool> RunVerify(std::span<const std::string_view> args);
// repair: true when every planned filter was rebuilt (exit 0), false when a table was left
// untouched because more than its filter is damaged (exit 1).
Result<bool> RunRepair(std::span<const std::string_view> args);

}  // namespace bloomcodec::tool
