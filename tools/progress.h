// A one-line progress display on standard error, for long work on a terminal only.
//
//   Progress progress(ShouldShowProgress(keys.size(), json));
//   progress.Show("probing 12000000 keys");
//   ...                                   // the line is erased when `progress` goes away
//
// Pipes and files never see it: scripts read standard error for the one error message.
#pragma once

#include <cstddef>
#include <string_view>

namespace bloomcodec::tool {

// True when standard error is a terminal, the output is not JSON and the work is large enough
// (over a million keys) that a silent pause would look like a hang.
bool ShouldShowProgress(std::size_t items, bool json);

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  void Show(std::string_view what);

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace bloomcodec::tool
