// The Python module `import bloomcodec` (docs/python.md): the format registry, build, probe,
// hash and size, inspect, verify and convert, over the library's public interface. Errors are
// bloomcodec.Error carrying the Status's file, offset, message and code.
#include <pybind11/stl.h>

#include <charconv>

#include "bloomcodec/convert.h"
#include "common.h"

namespace bloomcodec::python {

namespace {

// bloomcodec.Error, created once at import.
py::handle error_type;

void DefineError(py::module_& m) {
  py::dict attributes;
  attributes["file"] = py::none();
  attributes["offset"] = py::none();
  attributes["message"] = "";
  attributes["code"] = "";
  error_type = PyErr_NewExceptionWithDoc(
      "bloomcodec.Error",
      "A failed bloomcodec call: file (str or None), offset (the byte offset in file, or None), "
      "message (what was expected there) and code (invalid-argument, corrupt, io-error, ...) "
      "of the library's Status; str(e) is the whole message, as the command line prints it.",
      nullptr, attributes.ptr());
  if (!error_type) throw py::error_already_set();
  m.add_object("Error", error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const Status& s = e.status();
      py::object exc = py::reinterpret_borrow<py::object>(error_type)(e.what());
      exc.attr("file") = s.file().empty() ? py::object(py::none()) : py::str(s.file());
      exc.attr("offset") = s.offset() ? py::object(py::int_(*s.offset())) : py::object(py::none());
      exc.attr("message") = py::str(s.message());
      exc.attr("code") = py::str(std::string(StatusCodeName(s.code())));
      PyErr_SetObject(error_type.ptr(), exc.ptr());
    }
  });
}

py::list Formats() {
  py::list out;
  for (const FormatCodec* f : AllFormats()) {
    py::dict d;
    d["name"] = std::string(f->name());
    d["summary"] = std::string(f->summary());
    d["params"] = std::string(f->params_help());
    out.append(d);
  }
  return out;
}

py::bytes Build(const std::string& format, const py::object& keys, const py::object& offsets,
                const FilterParams& params) {
  const FormatCodec& f = FormatNamed(format);
  KeyViews views(keys, offsets);
  ByteVector file;
  {
    // Streamed, as convert builds: the keys are viewed in place, never gathered into a KeyList
    // (a format that needs them all at once keeps its own copy).
    py::gil_scoped_release release;
    std::unique_ptr<FilterBuilder> builder = Take(f.StartBuild(views.size(), params));
    Check(builder->Add(views.spans()));
    file = Take(builder->Finish());
  }
  return py::bytes(reinterpret_cast<const char*>(file.data()), file.size());
}

// The numbers of the format's hash line (the command line's `hash --json` values).
py::list Hash(const std::string& format, const py::object& key) {
  std::vector<py::buffer_info> held;
  std::string line;
  Check(FormatNamed(format).Hash(ViewKey(key, held), line));
  py::list values;
  std::string_view rest = line;
  while (!rest.empty()) {
    const std::string_view field = rest.substr(0, rest.find('\t'));
    values.append(py::int_(py::str(std::string(field))));
    rest = field.size() == rest.size() ? std::string_view() : rest.substr(field.size() + 1);
  }
  return values;
}

// `size --json`'s keys, optional ones only where they apply.
py::dict Size(const std::string& format, const FilterParams& params) {
  const SizeInfo s = Take(FormatNamed(format).Size(params));
  py::dict d;
  d["hash_count"] = s.hash_count;
  if (s.buckets_per_element) d["buckets_per_element"] = *s.buckets_per_element;
  if (s.bits_per_key) d["bits_per_key"] = *s.bits_per_key;
  d["bits"] = s.bits;
  if (s.words) d["words"] = *s.words;
  d["file_bytes"] = s.file_bytes;
  if (s.always_present) d["always_present"] = true;
  if (s.writes_filter_file) d["writes_filter_file"] = *s.writes_filter_file;
  if (!s.warnings.empty()) d["warnings"] = s.warnings;
  return d;
}

}  // namespace

}  // namespace bloomcodec::python

PYBIND11_MODULE(bloomcodec, m) {
  namespace bp = bloomcodec::python;
  namespace py = pybind11;
  m.doc() =
      "Bloom filters of Cassandra/ScyllaDB, LevelDB and RocksDB, bit for bit (docs/python.md).";
  bp::DefineError(m);
  m.def("formats", &bp::Formats,
        "Every format, in the order of the command-line contract: dicts of name, summary and "
        "params (the sizing parameters build and size take).");
  m.def(
      "build",
      [](const std::string& format, const py::object& keys, const py::object& offsets,
         const py::object& fp_chance, const py::object& buckets_per_element,
         const py::object& bits_per_key) {
        return bp::Build(format, keys, offsets,
                         bp::Params(fp_chance, buckets_per_element, bits_per_key, py::none()));
      },
      py::arg("format"), py::arg("keys"), py::arg("offsets") = py::none(), py::kw_only(),
      py::arg("fp_chance") = py::none(), py::arg("buckets_per_element") = py::none(),
      py::arg("bits_per_key") = py::none(),
      "The file the original writes for these keys (bytes), as `bloomcodec build` writes it. "
      "keys: a list of bytes/str/buffers, or one buffer with offsets= (see Filter.probe_many).");
  m.def("hash", &bp::Hash, py::arg("format"), py::arg("key"),
        "The numbers of the format's hash line for one key (`bloomcodec hash`).");
  m.def(
      "size",
      [](const std::string& format, std::int64_t expected_keys, const py::object& fp_chance,
         const py::object& buckets_per_element, const py::object& bits_per_key) {
        return bp::Size(format, bp::Params(fp_chance, buckets_per_element, bits_per_key,
                                           py::int_(expected_keys)));
      },
      py::arg("format"), py::arg("expected_keys"), py::kw_only(), py::arg("fp_chance") = py::none(),
      py::arg("buckets_per_element") = py::none(), py::arg("bits_per_key") = py::none(),
      "What the original allocates for expected_keys keys: `bloomcodec size --json`'s dict.");
  bp::DefineProbe(m);
  bp::DefineDocuments(m);
}
