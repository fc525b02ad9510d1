#include "progress.h"

#include <unistd.h>

#include <string>

namespace bloomcodec::tool {

namespace {
constexpr std::size_t kProgressThreshold = 1'000'000;

void WriteStderr(std::string_view text) {
  // Best effort: a progress line that cannot be shown is no reason to fail the command.
  while (!text.empty()) {
    ssize_t n = ::write(2, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}
}  // namespace

bool ShouldShowProgress(std::size_t items, bool json) {
  return !json && items > kProgressThreshold && ::isatty(2) == 1;
}

void Progress::Show(std::string_view what) {
  if (!enabled_) return;
  // \r returns to the line start, ESC[K clears the rest of the previous text.
  WriteStderr("\r\033[Kbloomcodec: " + std::string(what) + " ...");
  shown_ = true;
}

Progress::~Progress() {
  if (shown_) WriteStderr("\r\033[K");
}

}  // namespace bloomcodec::tool
