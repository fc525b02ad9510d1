// KeyViews, and the small conversions every binding uses (common.h).
#include <pybind11/stl.h>

#include <cstring>

#include "common.h"

namespace bloomcodec::python {

namespace {

// A Python integer sequence or integer buffer of offsets, as n + 1 values.
std::vector<std::uint64_t> ReadOffsets(const py::object& offsets) {
  std::vector<std::uint64_t> out;
  if (py::isinstance<py::buffer>(offsets)) {
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(offsets).request();
    if (info.ndim != 1 || (info.itemsize != 4 && info.itemsize != 8) ||
        info.strides[0] != info.itemsize) {
      throw StatusError(Status::InvalidArgument(
          "offsets: expected a contiguous one-dimensional buffer of 4- or 8-byte integers"));
    }
    const bool is_signed = info.format == "i" || info.format == "l" || info.format == "q";
    out.resize(static_cast<std::size_t>(info.size));
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto* at = static_cast<const std::uint8_t*>(info.ptr) + i * info.itemsize;
      std::int64_t v = 0;
      if (info.itemsize == 4) {
        std::int32_t s;
        std::uint32_t u;
        std::memcpy(&s, at, 4);
        std::memcpy(&u, at, 4);
        v = is_signed ? s : static_cast<std::int64_t>(u);
      } else {
        std::memcpy(&v, at, 8);
      }
      if (v < 0) throw StatusError(Status::InvalidArgument("offsets: a negative offset"));
      out[i] = static_cast<std::uint64_t>(v);
    }
    return out;
  }
  for (const py::handle item : offsets) out.push_back(item.cast<std::uint64_t>());
  return out;
}

}  // namespace

ByteSpan ViewKey(py::handle key, std::vector<py::buffer_info>& buffers, std::size_t index) {
  PyObject* item = key.ptr();
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(item)) {
    PyBytes_AsStringAndSize(item, &data, &size);
  } else if (PyUnicode_Check(item)) {
    // UTF-8, cached in the str object itself: nothing to free, nothing copied per call.
    const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
    if (!utf8) throw py::error_already_set();
    data = const_cast<char*>(utf8);
  } else if (PyObject_CheckBuffer(item)) {
    buffers.push_back(py::reinterpret_borrow<py::buffer>(item).request());
    const py::buffer_info& b = buffers.back();
    if (!PyBuffer_IsContiguous(b.view(), 'C')) {
      throw StatusError(Status::InvalidArgument("keys[" + std::to_string(index) +
                                                "]: a buffer that is not contiguous"));
    }
    data = static_cast<char*>(b.ptr);
    size = b.size * b.itemsize;
  } else {
    throw StatusError(Status::InvalidArgument(
        "keys[" + std::to_string(index) + "]: expected bytes, a buffer or str, found " +
        std::string(py::str(py::type::of(key).attr("__name__")))));
  }
  return {reinterpret_cast<const std::uint8_t*>(data), static_cast<std::size_t>(size)};
}

KeyViews::KeyViews(const py::object& keys, const py::object& offsets) {
  if (offsets.is_none()) {
    FromSequence(keys);
  } else {
    FromBuffer(keys, offsets);
  }
}

void KeyViews::FromSequence(const py::object& keys) {
  if (py::isinstance<py::bytes>(keys) || py::isinstance<py::str>(keys) ||
      py::isinstance<py::buffer>(keys)) {
    throw StatusError(Status::InvalidArgument(
        "keys: expected a list of keys, or a buffer of keys with offsets=; found one key"));
  }
  held_ = py::reinterpret_steal<py::object>(PySequence_Tuple(keys.ptr()));
  if (!held_) throw py::error_already_set();
  const auto n = static_cast<std::size_t>(PyTuple_GET_SIZE(held_.ptr()));
  spans_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    spans_.push_back(
        ViewKey(PyTuple_GET_ITEM(held_.ptr(), static_cast<Py_ssize_t>(i)), buffers_, i));
  }
}

void KeyViews::FromBuffer(const py::object& keys, const py::object& offsets) {
  if (!py::isinstance<py::buffer>(keys)) {
    throw StatusError(Status::InvalidArgument("keys: with offsets=, expected one buffer"));
  }
  buffers_.push_back(py::reinterpret_borrow<py::buffer>(keys).request());
  const py::buffer_info& b = buffers_.back();
  if (!PyBuffer_IsContiguous(b.view(), 'C')) {
    throw StatusError(Status::InvalidArgument("keys: a buffer that is not contiguous"));
  }
  const auto* data = static_cast<const std::uint8_t*>(b.ptr);
  const auto bytes = static_cast<std::uint64_t>(b.size * b.itemsize);
  const std::vector<std::uint64_t> ends = ReadOffsets(offsets);
  if (ends.empty()) {
    throw StatusError(Status::InvalidArgument("offsets: expected n + 1 offsets, found none"));
  }
  spans_.reserve(ends.size() - 1);
  for (std::size_t i = 0; i + 1 < ends.size(); ++i) {
    if (ends[i] > ends[i + 1] || ends[i + 1] > bytes) {
      throw StatusError(Status::InvalidArgument(
          "offsets[" + std::to_string(i + 1) + "] = " + std::to_string(ends[i + 1]) +
          ": expected at least offsets[" + std::to_string(i) + "] = " + std::to_string(ends[i]) +
          " and at most the buffer's " + std::to_string(bytes) + " bytes"));
    }
    spans_.emplace_back(data + ends[i], ends[i + 1] - ends[i]);
  }
}

py::object ToPython(const Document& doc) {
  // Kept for the life of the process (a static py::object would be released after the
  // interpreter is gone).
  static const py::handle loads = py::object(py::module_::import("json").attr("loads")).release();
  return loads(doc.dump(-1, ' ', false, Document::error_handler_t::replace));
}

const FormatCodec& FormatNamed(const std::string& name) {
  if (const FormatCodec* f = FindFormat(name)) return *f;
  std::string names;
  for (const FormatCodec* f : AllFormats())
    names += (names.empty() ? "" : ", ") + std::string(f->name());
  throw StatusError(
      Status::InvalidArgument("unknown format '" + name + "'; expected one of " + names));
}

FamilyOptions ReadFamilyOptions(Subcommand subcommand, const py::object& options) {
  FamilyOptions out;
  if (options.is_none()) return out;
  for (const auto& [flag, value] : options.cast<py::dict>()) {
    Check(ParseFamilyFlag(subcommand, flag.cast<std::string>(),
                          value.is_none() ? std::string() : value.cast<std::string>(), out));
  }
  return out;
}

FilterParams Params(const py::object& fp_chance, const py::object& buckets_per_element,
                    const py::object& bits_per_key, const py::object& expected_keys) {
  FilterParams p;
  if (!fp_chance.is_none()) p.fp_chance = fp_chance.cast<double>();
  if (!buckets_per_element.is_none())
    p.buckets_per_element = buckets_per_element.cast<std::int64_t>();
  if (!bits_per_key.is_none()) p.bits_per_key = bits_per_key.cast<double>();
  if (!expected_keys.is_none()) p.expected_keys = expected_keys.cast<std::int64_t>();
  return p;
}

}  // namespace bloomcodec::python
