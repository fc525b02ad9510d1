// Shared by the files of the Python module (internal to python/): how a Status becomes
// bloomcodec.Error, how a library document becomes Python objects, and how keys given from
// Python are viewed (never copied) as ByteSpans.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/family_options.h"
#include "bloomcodec/flags.h"
#include "bloomcodec/format.h"
#include "bloomcodec/status.h"

namespace bloomcodec::python {

namespace py = pybind11;

// A failed Status on its way to Python, where it is raised as bloomcodec.Error (module.cc).
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)), text_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  Status status_;
  std::string text_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}
template <typename T>
T Take(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// The document as Python objects (dicts, lists, str, int, float, bool, None): the text the
// command line prints for it (same dump, same replacement of invalid UTF-8), read by json.loads,
// so that a dict of the module and the CLI's --json can only be equal.
py::object ToPython(const Document& doc);

// A format by name, or bloomcodec.Error (InvalidArgument) listing the names.
const FormatCodec& FormatNamed(const std::string& name);

// The families' own options from {"--writer": "goleveldb", "--key-kind": "user", ...}: the
// family flags of `subcommand` as the command line spells them (a flag without a value: "").
FamilyOptions ReadFamilyOptions(Subcommand subcommand, const py::object& options);

// One key (bytes, str as UTF-8, or a contiguous buffer, held in `buffers`) viewed in place;
// `index` names it in errors.
ByteSpan ViewKey(py::handle key, std::vector<py::buffer_info>& buffers, std::size_t index = 0);

// Keys given from Python, viewed in place: a list (or tuple) of bytes-like objects or str, or
// one buffer of keys back to back plus `offsets` (n + 1 integers, Arrow's binary layout: key i
// is buffer[offsets[i]:offsets[i+1]]), as a list of int or a buffer of 4- or 8-byte integers.
// Holds what it views (a tuple of the list's items, the buffers) until it is destroyed, so the
// GIL may be released while the views are read. One allocation for the views, none per key.
class KeyViews {
 public:
  KeyViews(const py::object& keys, const py::object& offsets);
  std::span<const ByteSpan> spans() const { return spans_; }
  std::size_t size() const { return spans_.size(); }

 private:
  void FromSequence(const py::object& keys);
  void FromBuffer(const py::object& keys, const py::object& offsets);

  py::object held_;                       // the tuple of a list's items
  std::vector<py::buffer_info> buffers_;  // the buffers viewed (the keys, each non-bytes item)
  std::vector<ByteSpan> spans_;
};

// The sizing parameters of build, size and convert, as keyword arguments name them.
FilterParams Params(const py::object& fp_chance, const py::object& buckets_per_element,
                    const py::object& bits_per_key, const py::object& expected_keys);

void DefineProbe(py::module_& m);      // probe.cc
void DefineDocuments(py::module_& m);  // documents.cc

}  // namespace bloomcodec::python
