// Filter: what every bloom filter of every format answers.
//
//   std::vector<std::uint8_t> answers(keys.size());
//   filter.MayContainBatch(keys, answers);   // 1 = may contain, 0 = definitely not
//
// A format that overrides one MayContainBatch says `using Filter::MayContainBatch;` so the other
// stays callable on it.
//
// Answers are the original implementation's answers, false positives included.
#pragma once

#include <cstdint>
#include <span>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"

namespace bloomcodec {

class Filter {
 public:
  virtual ~Filter() = default;

  virtual bool MayContain(ByteSpan key) const = 0;
  // answers.size() must equal keys.size(). Formats override this with a faster batch path.
  virtual void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
    for (std::size_t i = 0; i < keys.size(); ++i) answers[i] = MayContain(keys[i]) ? 1 : 0;
  }
  // The same for keys that stay where they are (a mapped file's, streamed): formats whose batch
  // path reads keys in place override it; the default copies them into one KeyList first.
  virtual void MayContainBatch(std::span<const ByteSpan> keys,
                               std::span<std::uint8_t> answers) const {
    thread_local KeyList copy;  // reused: no allocation per call once it has grown
    copy.Assign(keys);
    MayContainBatch(copy, answers);
  }

  virtual std::uint32_t hash_count() const = 0;
  virtual std::uint64_t bit_count() const = 0;
  virtual std::uint64_t bits_set() const = 0;
};

}  // namespace bloomcodec
