// PageWindow: gives back the mapped pages a streaming reader has read, a window at a time, so
// the resident set of a mapped file stays about one window whatever the file's size.
//
//   PageWindow window(&data_file, 4 << 20);
//   reader.set_touched([&](std::uint64_t b, std::uint64_t e) { window.Touch(b, e); });
//   ...read...
//   window.Flush();
//
// Touch records the byte range a read used; once the pages touched since the last drop add up
// to the window, the span they lie in is given back (InputFile::DropPages: the page cache keeps
// them, a later read maps them again). A reader that goes back to a dropped page only pays a
// minor fault. Without a file (or for a file held in memory) it does nothing.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "bloomcodec/input_file.h"

namespace bloomcodec::cassandra::bti {

class PageWindow {
 public:
  PageWindow() = default;
  PageWindow(const InputFile* file, std::uint64_t window_bytes)
      : file_(file != nullptr && file->is_mapped() ? file : nullptr),
        window_pages_(std::max<std::uint64_t>(1, window_bytes >> PageShift())) {}

  // Called for every node and key read: no division (pages are a power of two), and a read in
  // the page of the last one returns at once.
  void Touch(std::uint64_t begin, std::uint64_t end) {
    if (file_ == nullptr || begin >= end) return;
    const std::uint64_t first = begin >> page_shift_, last = (end - 1) >> page_shift_;
    if (pages_ > 0 && first == last_page_ && last == last_page_) return;
    // Consecutive reads in one page count it once.
    const std::uint64_t added = last - first + (pages_ > 0 && first == last_page_ ? 0 : 1);
    // Entering a page past the window: the window read so far is given back first.
    if (pages_ > 0 && added > 0 && pages_ + added > window_pages_) Flush();
    if (pages_ == 0) {
      low_ = first;
      high_ = last;
      pages_ = last - first + 1;
    } else {
      low_ = std::min(low_, first);
      high_ = std::max(high_, last);
      pages_ += added;
    }
    last_page_ = last;
    if (pages_ > window_pages_) Flush();  // one read larger than the window
  }

  // Gives back every page touched since the last drop.
  void Flush() {
    if (file_ == nullptr || pages_ == 0) return;
    file_->DropPages(low_ << page_shift_, (high_ + 1) << page_shift_);
    pages_ = 0;
    ++drops_;
  }

  std::uint64_t drops() const { return drops_; }

 private:
  static unsigned PageShift() {
    static const unsigned shift =
        static_cast<unsigned>(std::countr_zero(static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE))));
    return shift;
  }

  const InputFile* file_ = nullptr;
  unsigned page_shift_ = PageShift();
  std::uint64_t window_pages_ = 1;
  std::uint64_t pages_ = 0;
  std::uint64_t low_ = 0, high_ = 0, last_page_ = 0;
  std::uint64_t drops_ = 0;
};

}  // namespace bloomcodec::cassandra::bti
