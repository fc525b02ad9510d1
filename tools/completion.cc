// Shell completion scripts, made from the declarations (see completion.h).
#include "completion.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "bloomcodec/format.h"
#include "command_flags.h"

namespace bloomcodec::tool {
namespace {

constexpr Subcommand kAll[] = {Subcommand::kBuild,   Subcommand::kProbe,   Subcommand::kHash,
                               Subcommand::kSize,    Subcommand::kInspect, Subcommand::kVerify,
                               Subcommand::kConvert, Subcommand::kDump,    Subcommand::kRepair};

// What a flag's value completes to, read from how its declaration spells the value: "F" is a
// format name; K, OUT and INDEX_DB are files, DIR a directory; lower-case words separated by '|'
// are the choices themselves ("text|hex|base64"); anything else (a number, a writer) offers
// nothing.
enum class ValueKind { kNone, kFormat, kFile, kDirectory, kChoices };

ValueKind KindOf(std::string_view value) {
  if (value == "F") return ValueKind::kFormat;
  if (value == "K" || value == "OUT" || value == "INDEX_DB") return ValueKind::kFile;
  if (value == "DIR") return ValueKind::kDirectory;
  const bool words = !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || c == ' ' || c == '[';
  });
  return words ? ValueKind::kChoices : ValueKind::kNone;
}

// Every flag that takes a value, once per name, with how its declaration spells the value.
std::vector<const FlagDecl*> ValueFlags() {
  std::vector<const FlagDecl*> decls;
  auto add = [&](const FlagDecl& d) {
    if (d.value.empty()) return;
    const bool known = std::any_of(decls.begin(), decls.end(),
                                   [&](const FlagDecl* k) { return k->name == d.name; });
    if (!known) decls.push_back(&d);
  };
  for (const FlagDecl& d : CommandFlags()) add(d);
  for (const FamilyFlag& f : FamilyFlags()) add(*f.decl);
  return decls;
}

std::string Words(std::string_view value) {
  std::string words(value);
  std::replace(words.begin(), words.end(), '|', ' ');
  return words;
}

std::string FormatNames() {
  std::string names;
  for (const FormatCodec* f : AllFormats())
    names += (names.empty() ? "" : " ") + std::string(f->name());
  return names;
}

std::string SubcommandNames() {
  std::string names;
  for (Subcommand s : kAll) names += std::string(SubcommandName(s)) + " ";
  return names + "help";
}

// The flags of a subcommand, space-separated, --help last.
std::string FlagNames(Subcommand subcommand) {
  std::string names;
  for (const FlagSpec& spec : SubcommandFlags(subcommand)) names += std::string(spec.name) + " ";
  return names + "--help";
}

// bash: the `case "$prev"` arms that complete a flag's value.
std::string BashValueArms() {
  std::string arms;
  for (const FlagDecl* d : ValueFlags()) {
    std::string action;
    switch (KindOf(d->value)) {
      case ValueKind::kFormat: action = "compgen -W \"$formats\" -- \"$cur\""; break;
      case ValueKind::kFile: action = "compgen -f -- \"$cur\""; break;
      case ValueKind::kDirectory: action = "compgen -d -- \"$cur\""; break;
      case ValueKind::kChoices:
        action = "compgen -W \"" + Words(d->value) + "\" -- \"$cur\"";
        break;
      case ValueKind::kNone: break;
    }
    arms += "    " + std::string(d->name) + ")\n";
    if (action.empty()) {
      arms += "      return 0 ;;  # " + std::string(d->value) + ": nothing to offer\n";
    } else {
      arms += "      COMPREPLY=($(" + action + "))\n      return 0 ;;\n";
    }
  }
  return arms;
}

}  // namespace

std::span<const Subcommand> AllSubcommands() { return kAll; }

std::string SubcommandList(const Subcommands& subcommands) {
  std::string list;
  for (Subcommand s : AllSubcommands()) {
    if (subcommands.has(s)) list += (list.empty() ? "" : ", ") + std::string(SubcommandName(s));
  }
  return list;
}

std::string BashCompletion() {
  std::string text =
      "# bash completion for bloomcodec(1). Generated at build time by bloomcodec-cli-docs from\n"
      "# the flag declarations and the format registry; do not edit.\n"
      "_bloomcodec() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} sub= i\n"
      "  local formats=\"" +
      FormatNames() +
      "\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      -*) ;;\n"
      "      *) sub=${COMP_WORDS[i]}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  if [[ -z $sub ]]; then\n"
      "    COMPREPLY=($(compgen -W \"" +
      SubcommandNames() +
      " --help --version\" -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  case $prev in\n" +
      BashValueArms() +
      "  esac\n"
      "  local flags\n"
      "  case $sub in\n";
  for (Subcommand s : kAll) {
    text += "    " + std::string(SubcommandName(s)) + ") flags=\"" + FlagNames(s) + "\" ;;\n";
  }
  text +=
      "    help)\n"
      "      COMPREPLY=($(compgen -W \"" +
      SubcommandNames() +
      "\" -- \"$cur\"))\n"
      "      return 0 ;;\n"
      "    *) return 0 ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "  return 0\n"
      "}\n"
      "complete -o filenames -o bashdefault -F _bloomcodec bloomcodec\n";
  return text;
}

namespace {

// zsh: how _arguments completes a flag's value ("" for a flag without one).
std::string ZshAction(const FlagDecl& d) {
  switch (KindOf(d.value)) {
    case ValueKind::kFormat: return ":format:(" + FormatNames() + ")";
    case ValueKind::kFile: return ":" + std::string(d.value) + ":_files";
    case ValueKind::kDirectory: return ":directory:_files -/";
    case ValueKind::kChoices:
      return ":" + std::string(d.name.substr(2)) + ":(" + Words(d.value) + ")";
    case ValueKind::kNone: return ":" + std::string(d.value) + ": ";
  }
  return {};
}

// Text inside a zsh single-quoted word: a quote is closed, escaped and reopened; brackets and
// colons would end an _arguments description early.
std::string ZshDescription(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']')
      out += c == '[' ? '(' : ')';
    else if (c == ':')
      out += ',';
    else
      out += c;
  }
  if (out.size() > 70) out = out.substr(0, 67) + "...";
  return out;
}

// The first declaration of a flag `name` for `subcommand`: the command line's own, then the
// families'.
const FlagDecl* DeclFor(std::string_view name, Subcommand subcommand) {
  for (const FlagDecl& d : CommandFlags()) {
    if (d.name == name && d.subcommands.has(subcommand)) return &d;
  }
  for (const FamilyFlag& f : FamilyFlags(subcommand)) {
    if (f.decl->name == name) return f.decl;
  }
  return nullptr;
}

}  // namespace

std::string ZshCompletion() {
  std::string text =
      "#compdef bloomcodec\n"
      "# zsh completion for bloomcodec(1). Generated at build time by bloomcodec-cli-docs from\n"
      "# the flag declarations and the format registry; do not edit.\n"
      "local -a subcommands\n"
      "subcommands=(" +
      SubcommandNames() +
      ")\n"
      "if (( CURRENT == 2 )); then\n"
      "  _describe -t subcommands 'bloomcodec subcommand' subcommands\n"
      "  compadd -- --help --version\n"
      "  return\n"
      "fi\n"
      "local sub=${words[2]}\n"
      "shift words\n"
      "(( CURRENT-- ))\n"
      "case $sub in\n";
  for (Subcommand s : kAll) {
    text += "  " + std::string(SubcommandName(s)) + ")\n    _arguments -s \\\n";
    for (const FlagSpec& spec : SubcommandFlags(s)) {
      const FlagDecl* d = DeclFor(spec.name, s);
      if (!d) continue;
      text += "      '" + std::string(d->name) + "[" + ZshDescription(d->help) + "]" +
              ZshAction(*d) + "' \\\n";
    }
    text += "      '--help[print the help]' \\\n      '*:file:_files' ;;\n";
  }
  text +=
      "  help) _describe -t subcommands 'bloomcodec subcommand' subcommands ;;\n"
      "esac\n";
  return text;
}

}  // namespace bloomcodec::tool
