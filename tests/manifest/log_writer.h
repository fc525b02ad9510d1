// A minimal writer of the log-record format and of version edits, for tests that need MANIFESTs
// with chosen contents or damage (written from the format description in manifest.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "blocktable/crc32c.h"
#include "bloomcodec/bytes.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest_test {

inline void PutVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void PutBytes(std::string& out, const std::string& s) {
  PutVarint(out, s.size());
  out += s;
}

// An internal key: the user key and an 8-byte tag (sequence << 8 | type 1).
inline std::string InternalKey(const std::string& user, std::uint64_t seq) {
  std::string k = user;
  const std::uint64_t tag = seq << 8 | 1;
  for (int i = 0; i < 8; ++i) k.push_back(static_cast<char>(tag >> (8 * i)));
  return k;
}

// A LevelDB new-file field (tag 7).
inline std::string NewFile(int level, std::uint64_t number, std::uint64_t size,
                           const std::string& smallest, const std::string& largest) {
  std::string e;
  PutVarint(e, 7);
  PutVarint(e, level);
  PutVarint(e, number);
  PutVarint(e, size);
  PutBytes(e, InternalKey(smallest, 1));
  PutBytes(e, InternalKey(largest, 1));
  return e;
}

// Appends `payload` as one record (fragments across 32 KiB blocks, block tails padded).
inline void AppendRecord(std::string& log, const std::string& payload) {
  std::size_t done = 0;
  bool first = true;
  do {
    std::size_t left = manifest::kBlockSize - log.size() % manifest::kBlockSize;
    if (left < manifest::kHeaderSize) {
      log.append(left, '\0');
      left = manifest::kBlockSize;
    }
    const std::size_t n = std::min(payload.size() - done, left - manifest::kHeaderSize);
    const bool last = done + n == payload.size();
    const std::uint8_t type = first && last ? 1 : first ? 2 : last ? 4 : 3;
    std::string body;
    body.push_back(static_cast<char>(type));
    body.append(payload, done, n);
    const std::uint32_t crc = blocktable::MaskCrc(blocktable::Crc32c(
        ByteSpan(reinterpret_cast<const std::uint8_t*>(body.data()), body.size())));
    for (int i = 0; i < 4; ++i) log.push_back(static_cast<char>(crc >> (8 * i)));
    log.push_back(static_cast<char>(n & 0xff));
    log.push_back(static_cast<char>(n >> 8));
    log += body;
    done += n;
    first = false;
  } while (done < payload.size());
}

inline ByteSpan Span(const std::string& s) {
  return ByteSpan(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}

}  // namespace bloomcodec::manifest_test
