// inspect, verify and convert: the library's engines, returning the documents `--json` prints
// (the same library functions render them: InspectFile, InspectDirectory, VerifyReportJson,
// ConversionReport).
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>

#include "bloomcodec/convert.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/output_file.h"
#include "bloomcodec/verify.h"
#include "common.h"

namespace bloomcodec::python {

namespace {

namespace fs = std::filesystem;

// str, os.PathLike, or a list of them.
std::vector<std::string> Paths(const py::object& paths) {
  const py::object fspath = py::module_::import("os").attr("fspath");
  std::vector<std::string> out;
  if (py::isinstance<py::str>(paths) || py::hasattr(paths, "__fspath__")) {
    out.push_back(py::str(fspath(paths)));
  } else {
    for (const py::handle p : paths) out.push_back(py::str(fspath(p)));
  }
  return out;
}

KeyFormat KeyFormatNamed(const std::string& name) {
  KeyFormat f;
  if (!ParseKeyFormat(name, f)) {
    throw StatusError(
        Status::InvalidArgument("key_format: expected text, hex or base64, found '" + name + "'"));
  }
  return f;
}

// Keys held by Python (KeyViews) as a stream, in the library's chunk size; not copied.
class ViewStream final : public KeyStream {
 public:
  explicit ViewStream(const py::object& keys) : views_(keys, py::none()) {}
  const std::string& source() const override { return source_; }
  std::string_view key_unit() const override { return "key"; }
  Status ForEachChunk(const ChunkFn& fn) const override {
    const std::span<const ByteSpan> all = views_.spans();
    for (std::size_t at = 0; at < all.size(); at += kStreamChunkKeys) {
      BLOOMCODEC_RETURN_IF_ERROR(fn(all.subspan(at, std::min(kStreamChunkKeys, all.size() - at))));
    }
    return Status();
  }

 private:
  KeyViews views_;
  std::string source_ = "<keys>";
};

// keys=: a key file's path (read as key_format says; checked whole before anything acts), or
// the keys themselves (a list of bytes/str/buffers).
std::unique_ptr<KeyStream> OpenKeys(const py::object& keys, const std::string& key_format) {
  if (keys.is_none()) return nullptr;
  if (py::isinstance<py::str>(keys) || py::hasattr(keys, "__fspath__")) {
    std::unique_ptr<KeyStream> stream =
        Take(OpenKeyFile(Paths(keys).front(), KeyFormatNamed(key_format)));
    Take(CountKeys(*stream));
    return stream;
  }
  return std::make_unique<ViewStream>(keys);
}

py::object Inspect(const py::object& paths, const std::optional<std::string>& format) {
  const std::vector<std::string> list = Paths(paths);
  const FormatCodec* given = format ? &FormatNamed(*format) : nullptr;
  Document files = Document::array();
  {
    py::gil_scoped_release release;
    for (const std::string& path : list) {
      std::error_code ec;
      if (fs::is_directory(path, ec)) {
        if (given)
          throw StatusError(
              Status::InvalidArgument(path + " is a directory: format= applies to files"));
        files.push_back(Take(InspectDirectory(path)));
        continue;
      }
      InputFile input = Take(InputFile::Open(path));
      const FormatCodec* f = given;
      if (!f) {
        std::string_view name = input.path();
        if (name.ends_with(".gz")) name.remove_suffix(3);
        f = DetectFormat(name, input.bytes());
      }
      if (!f) {
        throw StatusError(Status::InvalidArgument(
            input.path() + " does not say which format it is: give format="));
      }
      files.push_back(Take(InspectFile(input.bytes(), input.path(), *f)));
    }
  }
  return ToPython(InspectDocument(std::move(files)));
}

py::object Verify(const py::object& paths, const py::object& keys, const std::string& key_format,
                  const std::optional<std::string>& index, bool from_table,
                  const std::optional<std::string>& format, const py::object& options,
                  unsigned threads) {
  VerifyOptions o;
  o.family = ReadFamilyOptions(Subcommand::kVerify, options);
  if (format) o.format = &FormatNamed(*format);
  o.threads = threads;
  const std::unique_ptr<KeyStream> stream = OpenKeys(keys, key_format);
  if ((stream ? 1 : 0) + (index ? 1 : 0) + (from_table ? 1 : 0) > 1) {
    throw StatusError(
        Status::InvalidArgument("keys=, index= and from_table= are alternatives; give one"));
  }
  if (stream) {
    o.key_source = KeySource::kKeyList;
    o.keys = stream.get();
    o.keys_source_name = stream->source();
  } else if (index) {
    o.key_source = KeySource::kIndexDb;
    o.index_path = *index;
  } else if (from_table) {
    o.key_source = KeySource::kFromTable;
  }
  const std::vector<std::string> list = Paths(paths);
  Document doc;
  {
    py::gil_scoped_release release;
    doc = VerifyReportJson(Take(VerifyPaths(list, o)));
  }
  return ToPython(doc);
}

struct ConvertArgs {
  std::string path;
  std::string to;
  std::string output;
  py::object keys;
  std::string key_format;
  std::optional<std::string> index;
  bool from_table = false;
  std::optional<std::string> format;
  FilterParams params;
  py::object options;
  bool force = false;
};

// Refuses to write over an input (the CLI's rule): the file converted or its keys.
void CheckNotAnInput(const std::string& out, std::initializer_list<std::string> inputs) {
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!in.empty() && (out == in || fs::equivalent(out, in, ec))) {
      throw StatusError(Status::InvalidArgument(out + ": refusing to overwrite the input " + in));
    }
  }
}

py::object Convert(const ConvertArgs& a) {
  InputFile input = Take(InputFile::Open(a.path));
  ConvertInput in{input.path(), input.bytes(), nullptr};
  if (a.format) {
    in.format = &FormatNamed(*a.format);
  } else {
    std::string_view name = input.path();
    if (name.ends_with(".gz")) name.remove_suffix(3);
    in.format = DetectFormat(name, input.bytes());
    if (!in.format && !LooksLikeJsonDocument(input.bytes())) {
      throw StatusError(
          Status::InvalidArgument(input.path() + " does not say which format it is: give format="));
    }
  }
  ConvertOptions o;
  o.to = &FormatNamed(a.to);
  o.params = a.params;
  o.family = ReadFamilyOptions(Subcommand::kConvert, a.options);
  o.from_table = a.from_table;
  o.force = a.force;
  std::error_code ec;
  o.split = a.output.ends_with("/") || fs::is_directory(a.output, ec);
  std::string out = a.output;
  if (o.split && out.size() > 1 && out.ends_with("/")) out.pop_back();
  std::unique_ptr<KeyStream> keys =
      a.index ? Take(OpenIndexKeys(*a.index, in.format)) : OpenKeys(a.keys, a.key_format);
  o.keys = keys.get();
  std::string keys_path = a.index.value_or("");
  if (py::isinstance<py::str>(a.keys)) keys_path = a.keys.cast<std::string>();
  if (!o.split) CheckNotAnInput(out, {a.path, keys_path});
  Document report;
  {
    py::gil_scoped_release release;
    const Conversion result = Take(bloomcodec::Convert(in, o));
    if (o.split) fs::create_directories(out, ec);
    for (const ConvertedFile& f : result.files) {
      if (o.split) CheckNotAnInput(ConvertedFilePath(out, f), {a.path});
      Check(WriteFileAtomically(ConvertedFilePath(out, f), f.bytes));
    }
    report = ConversionReport(result, o, input.path(), out);
  }
  return ToPython(report);
}

}  // namespace

void DefineDocuments(py::module_& m) {
  m.def("inspect", &Inspect, py::arg("paths"), py::arg("format") = py::none(),
        "inspect of files and database directories: the document `bloomcodec inspect --json` "
        "prints, {\"schema_version\": 1, \"files\": [...]}, as dicts.");
  m.def("verify", &Verify, py::arg("paths"), py::kw_only(), py::arg("keys") = py::none(),
        py::arg("key_format") = "text", py::arg("index") = py::none(),
        py::arg("from_table") = false, py::arg("format") = py::none(),
        py::arg("options") = py::none(), py::arg("threads") = 0u,
        "verify of files and data directories: the document `bloomcodec verify --json` prints, "
        "as dicts. keys= is a key file's path (key_format= text, hex or base64) or a list of "
        "keys. Findings are in the document; bloomcodec.Error is raised only where the command "
        "line exits 2 (a path that does not exist, an undecidable format, ...).");
  m.def(
      "convert",
      [](const std::string& path, const std::string& to, const std::string& output,
         const py::object& keys, const std::string& key_format,
         const std::optional<std::string>& index, bool from_table,
         const std::optional<std::string>& format, const py::object& fp_chance,
         const py::object& buckets_per_element, const py::object& bits_per_key,
         const py::object& options, bool force) {
        return Convert({path, to, output, keys, key_format, index, from_table, format,
                        Params(fp_chance, buckets_per_element, bits_per_key, py::none()), options,
                        force});
      },
      py::arg("path"), py::arg("to"), py::arg("output"), py::kw_only(),
      py::arg("keys") = py::none(), py::arg("key_format") = "text", py::arg("index") = py::none(),
      py::arg("from_table") = false, py::arg("format") = py::none(),
      py::arg("fp_chance") = py::none(), py::arg("buckets_per_element") = py::none(),
      py::arg("bits_per_key") = py::none(), py::arg("options") = py::none(),
      py::arg("force") = false,
      "convert of one file, written to output (a directory, or a path ending in '/', for a "
      "split): the report `bloomcodec convert --json` prints, as a dict.");
}

}  // namespace bloomcodec::python
