// bloomcodec.Filter: one filter file or table, opened once, probed by single keys or by batches.
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bloomcodec/input_file.h"
#include "common.h"

namespace bloomcodec::python {

namespace {

class Filter {
 public:
  Filter(const py::object& source, const std::optional<std::string>& format,
         const py::object& options, const std::optional<std::string>& name) {
    ProbeOptions probe;
    probe.family = ReadFamilyOptions(Subcommand::kProbe, options);
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
      const std::string path = py::str(py::module_::import("os").attr("fspath")(source));
      file_.emplace(Take(InputFile::Open(path)));
      bytes_ = file_->bytes();
      source_ = file_->path();
    } else {
      // Bytes in memory: viewed, not copied (the buffer is held, and locked, while open).
      buffer_ = py::reinterpret_borrow<py::buffer>(source).request();
      if (!PyBuffer_IsContiguous(buffer_->view(), 'C')) {
        throw StatusError(Status::InvalidArgument("the filter's bytes are not contiguous"));
      }
      bytes_ = ByteSpan(static_cast<const std::uint8_t*>(buffer_->ptr),
                        static_cast<std::size_t>(buffer_->size * buffer_->itemsize));
      source_ = name.value_or("<bytes>");
    }
    if (format) {
      format_ = &FormatNamed(*format);
    } else {
      std::string_view detect_name = source_;
      if (detect_name.ends_with(".gz")) detect_name.remove_suffix(3);
      format_ = DetectFormat(detect_name, bytes_);
      if (!format_) {
        throw StatusError(Status::InvalidArgument(
            source_ + " does not say which format it is (none or several claim it): give format="));
      }
    }
    py::gil_scoped_release release;
    probe_ = Take(format_->OpenProbe(bytes_, source_, probe));
  }

  std::string format() const { return std::string(format_->name()); }
  const std::string& source() const { return source_; }

  bool ProbeOne(const py::object& key) {
    std::vector<py::buffer_info> held;
    const ByteSpan view = ViewKey(key, held);
    std::uint8_t answer = 0;
    Check(probe_->Probe(std::span<const ByteSpan>(&view, 1), std::span<std::uint8_t>(&answer, 1)));
    return answer != 0;
  }

  // One answer byte per key (1: may contain, 0: definitely not), into `out` when given (a
  // writable buffer of exactly as many bytes as keys), else into a new bytearray.
  py::object ProbeMany(const py::object& keys, const py::object& offsets, const py::object& out) {
    KeyViews views(keys, offsets);
    py::object result;
    std::optional<py::buffer_info> target;
    std::span<std::uint8_t> answers;
    if (out.is_none()) {
      result = py::reinterpret_steal<py::object>(
          PyByteArray_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(views.size())));
      if (!result) throw py::error_already_set();
      answers = {reinterpret_cast<std::uint8_t*>(PyByteArray_AS_STRING(result.ptr())),
                 views.size()};
    } else {
      target = py::reinterpret_borrow<py::buffer>(out).request(/*writable=*/true);
      if (static_cast<std::size_t>(target->size * target->itemsize) != views.size() ||
          !PyBuffer_IsContiguous(target->view(), 'C')) {
        throw StatusError(Status::InvalidArgument("out: expected a contiguous writable buffer of " +
                                                  std::to_string(views.size()) +
                                                  " bytes (one per key)"));
      }
      answers = {static_cast<std::uint8_t*>(target->ptr), views.size()};
      result = out;
    }
    Status status;
    {
      py::gil_scoped_release release;
      status = probe_->Probe(views.spans(), answers);
    }
    Check(status);
    return result;
  }

 private:
  std::optional<InputFile> file_;
  std::optional<py::buffer_info> buffer_;
  ByteSpan bytes_;
  std::string source_;
  const FormatCodec* format_ = nullptr;
  std::unique_ptr<FileProbe> probe_;  // views bytes_: declared after it, destroyed before it
};

}  // namespace

void DefineProbe(py::module_& m) {
  py::class_<Filter>(m, "Filter", R"(A filter file or table opened once for probing.

Filter(source, format=None, options=None, name=None): source is a path (str or os.PathLike) or
the file's bytes (any buffer, viewed, not copied). format is a format name (bloomcodec.formats());
without it the format is detected as the command line does. options holds the family flags of
`bloomcodec probe` ({"--key-kind": "user"}). name names in-memory bytes in errors.)")
      .def(py::init<const py::object&, const std::optional<std::string>&, const py::object&,
                    const std::optional<std::string>&>(),
           py::arg("source"), py::arg("format") = py::none(), py::arg("options") = py::none(),
           py::arg("name") = py::none())
      .def_property_readonly("format", &Filter::format, "the format's name")
      .def_property_readonly("source", &Filter::source, "the path, or the name of the bytes")
      .def("probe", &Filter::ProbeOne, py::arg("key"),
           "The original's answer for one key (bytes, a buffer, or str as UTF-8): False means "
           "definitely absent.")
      .def("probe_many", &Filter::ProbeMany, py::arg("keys"), py::arg("offsets") = py::none(),
           py::arg("out") = py::none(),
           "The answers for many keys, one byte each (1 may contain, 0 definitely not), as a "
           "bytearray (or into out=). keys: a list of bytes/str/buffers, or one buffer of keys "
           "back to back with offsets= (n + 1 integers: a list, or a buffer of 4- or 8-byte "
           "integers). The GIL is released while the keys are probed.");
}

}  // namespace bloomcodec::python
