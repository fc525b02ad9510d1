// Status and Result: how every bloomcodec function reports failure.
//
//   bloomcodec::Result<FilterFile> r = ReadSomething(bytes, "Filter.db");
//   if (!r.ok()) {
//     std::cerr << r.status().ToString() << "\n";  // "Filter.db: byte 4: expected ..."
//     return 2;
//   }
//   FilterFile f = std::move(r).value();
//
// No bloomcodec function throws for bad input. A Status names the file, the byte offset
// (when the problem has one) and what was expected there, so that an operator can find the
// damage with a hex editor. Status and Result are [[nodiscard]]: ignoring one is a warning.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bloomcodec {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something meaningless (bad parameter, bad usage)
  kCorrupt,          // the input's bytes are not what the format allows
  kIoError,          // the operating system refused (open, read, write, rename)
  kUnsupported,      // a valid input this library does not handle
  kRefused,          // the original implementation refuses these parameters (sizing limits)
  kInternal,         // a check of our own output failed: a bug in bloomcodec, please report
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK

  static Status InvalidArgument(std::string message);
  static Status Unsupported(std::string message);
  static Status Refused(std::string message);
  // A check of our own output failed: a bug in bloomcodec, please report. Never bad input.
  static Status Internal(std::string message);
  static Status IoError(std::string file, std::string message);
  // `expected` completes "expected ..."; `found` (optional) completes "found ...".
  static Status Corrupt(std::string file, std::uint64_t offset, std::string expected,
                        std::string found = {});
  // A corruption without a meaningful single offset (e.g. a whole-file property).
  static Status CorruptFile(std::string file, std::string message);

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const;
  const std::string& file() const;
  std::optional<std::uint64_t> offset() const;
  const std::string& message() const;

  // "file: byte N: expected X, found Y" or "file: message" or "message".
  std::string ToString() const;

  // Returns this status with `file` filled in where the producer did not know the name.
  Status WithFile(std::string_view file) const;
  // Returns this status with `delta` added to its offset (a sub-span decoded on its own).
  Status ShiftedBy(std::uint64_t delta) const;

 private:
  struct Rep {
    StatusCode code;
    std::string file;
    std::optional<std::uint64_t> offset;
    std::string message;
  };
  explicit Status(Rep rep) : rep_(std::make_shared<const Rep>(std::move(rep))) {}
  std::shared_ptr<const Rep> rep_;  // null when OK: an OK status costs one pointer
};

// A value or the Status saying why there is none (after absl::StatusOr).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::InvalidArgument("Result built from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace bloomcodec

#define BLOOMCODEC_CONCAT_INNER_(a, b) a##b
#define BLOOMCODEC_CONCAT_(a, b) BLOOMCODEC_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function when `expr` is not OK.
#define BLOOMCODEC_RETURN_IF_ERROR(expr)                     \
  do {                                                       \
    ::bloomcodec::Status bloomcodec_status_ = (expr);        \
    if (!bloomcodec_status_.ok()) return bloomcodec_status_; \
  } while (0)

// `lhs = value of expr`, or return its Status. lhs may declare: `auto x`.
#define BLOOMCODEC_ASSIGN_OR_RETURN(lhs, expr) \
  BLOOMCODEC_ASSIGN_OR_RETURN_IMPL_(BLOOMCODEC_CONCAT_(bloomcodec_result_, __LINE__), lhs, expr)
#define BLOOMCODEC_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                      \
  if (!tmp.ok()) return tmp.status();                     \
  lhs = std::move(tmp).value()
