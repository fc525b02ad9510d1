#include "output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace bloomcodec::tool {

Status WriteStdout(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(1, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError("<stdout>", std::string("cannot write: ") + std::strerror(errno));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status();
}

Status WriteJson(const nlohmann::ordered_json& doc) {
  std::string text = doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text += '\n';
  return WriteStdout(text);
}

}  // namespace bloomcodec::tool
