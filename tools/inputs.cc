#include "inputs.h"

#include <filesystem>

#include "usage.h"

namespace bloomcodec::tool {

Result<LoadedKeys> LoadKeys(const Args& args) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string_view path, args.Required("--keys"));
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyFormat format, ReadKeyFormat(args));
  Result<InputFile> file =
      path == "-" ? InputFile::ReadStdin() : InputFile::Open(std::string(path));
  if (!file.ok()) return file.status();
  LoadedKeys loaded;
  loaded.source = file->path();
  BLOOMCODEC_ASSIGN_OR_RETURN(loaded.keys, ParseKeyFile(file->bytes(), format, loaded.source));
  return loaded;
}

Result<std::unique_ptr<KeyStream>> OpenKeys(const Args& args) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::string_view path, args.Required("--keys"));
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyFormat format, ReadKeyFormat(args));
  return OpenKeyFile(std::string(path), format);
}

std::size_t FileBytes(const std::string& path) {
  std::error_code ec;
  if (path.empty() || path == "-") return 0;
  const std::uintmax_t n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::size_t>(n);
}

Result<const FormatCodec*> ResolveFormat(const Args& args, const InputFile& input) {
  if (std::optional<std::string_view> name = args.Value("--format")) return FormatByName(*name);
  std::string_view path = input.path();
  // Names like Keyspace1-Standard1-hc-12-Filter.db.gz still carry the version letters.
  if (path.ends_with(".gz")) path.remove_suffix(3);
  if (const FormatCodec* f = DetectFormat(path, input.bytes())) return f;
  return MissingFormat(" because '" + input.path() + "' does not say which format it is");
}

Result<const FormatCodec*> RequiredFormat(const Args& args) {
  std::optional<std::string_view> name = args.Value("--format");
  if (!name) return MissingFormat("");
  return FormatByName(*name);
}

}  // namespace bloomcodec::tool
