#include "bloomcodec/status.h"

namespace bloomcodec {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kCorrupt: return "corrupt";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kRefused: return "refused";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

Status Status::InvalidArgument(std::string message) {
  return Status(Rep{StatusCode::kInvalidArgument, {}, std::nullopt, std::move(message)});
}
Status Status::Unsupported(std::string message) {
  return Status(Rep{StatusCode::kUnsupported, {}, std::nullopt, std::move(message)});
}
Status Status::Refused(std::string message) {
  return Status(Rep{StatusCode::kRefused, {}, std::nullopt, std::move(message)});
}
Status Status::Internal(std::string message) {
  return Status(Rep{StatusCode::kInternal, {}, std::nullopt, std::move(message)});
}
Status Status::IoError(std::string file, std::string message) {
  return Status(Rep{StatusCode::kIoError, std::move(file), std::nullopt, std::move(message)});
}
Status Status::Corrupt(std::string file, std::uint64_t offset, std::string expected,
                       std::string found) {
  std::string message = "expected " + expected;
  if (!found.empty()) message += ", found " + found;
  return Status(Rep{StatusCode::kCorrupt, std::move(file), offset, std::move(message)});
}
Status Status::CorruptFile(std::string file, std::string message) {
  return Status(Rep{StatusCode::kCorrupt, std::move(file), std::nullopt, std::move(message)});
}

namespace {
const std::string& EmptyString() {
  static const std::string empty;
  return empty;
}
}  // namespace

StatusCode Status::code() const { return rep_ ? rep_->code : StatusCode::kOk; }
const std::string& Status::file() const { return rep_ ? rep_->file : EmptyString(); }
std::optional<std::uint64_t> Status::offset() const { return rep_ ? rep_->offset : std::nullopt; }
const std::string& Status::message() const { return rep_ ? rep_->message : EmptyString(); }

std::string Status::ToString() const {
  if (!rep_) return "OK";
  std::string s;
  if (!rep_->file.empty()) s += rep_->file + ": ";
  if (rep_->offset) s += "byte " + std::to_string(*rep_->offset) + ": ";
  s += rep_->message;
  return s;
}

Status Status::WithFile(std::string_view file) const {
  if (!rep_ || !rep_->file.empty()) return *this;
  Rep rep = *rep_;
  rep.file = std::string(file);
  return Status(std::move(rep));
}

Status Status::ShiftedBy(std::uint64_t delta) const {
  if (!rep_ || !rep_->offset) return *this;
  Rep rep = *rep_;
  *rep.offset += delta;
  return Status(std::move(rep));
}

}  // namespace bloomcodec
