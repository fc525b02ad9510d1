// Shell completion for bloomcodec, made at build time (tools/CMakeLists.txt) from the flag
// declarations (command_flags.h and the families') and the format registry: the subcommands,
// each one's flags, the format names after --format and --to, the choices a flag's value
// spells ("text|hex|base64"), files after the flags that take one. Internal to the command
// line; the scripts are installed (Debian: bash-completion's and zsh's vendor directories).
//
//   WriteFile("bloomcodec.bash", BashCompletion());
#pragma once

#include <span>
#include <string>

#include "bloomcodec/flags.h"

namespace bloomcodec::tool {

// Every subcommand, in the order of help and docs/cli.md.
std::span<const Subcommand> AllSubcommands();
// The subcommands of `subcommands` in that order, comma separated ("build, probe").
std::string SubcommandList(const Subcommands& subcommands);

// A bash script that defines the completion (`complete -F _bloomcodec bloomcodec`); needs
// nothing from the bash-completion package.
std::string BashCompletion();
// A zsh completion function file (`#compdef bloomcodec`), for a directory on $fpath.
std::string ZshCompletion();

}  // namespace bloomcodec::tool
