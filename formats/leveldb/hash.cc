#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

namespace {

constexpr std::uint32_t kMultiplier = 0xc6a4a793;

inline std::uint32_t LoadLittle32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

// The value a tail byte contributes before shifting. Trap: until 1.17 the original added the raw
// `char` (`h += data[2] << 16`), so on x86, where char is signed, bytes >= 0x80 were
// sign-extended to 0xFFFFFFxx and the high bits spill into the sum. 1.18 made it unsigned.
template <HashFlavor kFlavor>
inline std::uint32_t TailByte(std::uint8_t b) {
  if constexpr (kFlavor == HashFlavor::kSignedTail) {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(b)));
  } else {
    return b;
  }
}

// The hash from state `h` over the bytes that remain (whole 4-byte blocks, then the tail).
template <HashFlavor kFlavor>
std::uint32_t ResumeImpl(std::uint32_t h, const std::uint8_t* p, std::size_t n) {
  const std::uint8_t* const end = p + n;
  for (; end - p >= 4; p += 4) {
    h += LoadLittle32(p);
    h *= kMultiplier;
    h ^= h >> 16;
  }
  // Unsigned shifts: a sign-extended byte shifted left keeps its 1s in the high bits, exactly as
  // the original's `int << 16` did on two's-complement x86.
  switch (end - p) {
    case 3: h += TailByte<kFlavor>(p[2]) << 16; [[fallthrough]];
    case 2: h += TailByte<kFlavor>(p[1]) << 8; [[fallthrough]];
    case 1:
      h += TailByte<kFlavor>(p[0]);
      h *= kMultiplier;
      h ^= h >> 24;
      break;
    default: break;
  }
  return h;
}

template <HashFlavor kFlavor>
std::uint32_t HashImpl(const std::uint8_t* data, std::size_t n, std::uint32_t seed) {
  return ResumeImpl<kFlavor>(HashStart(n, seed), data, n);
}

}  // namespace

std::uint32_t Hash(ByteSpan data, std::uint32_t seed, HashFlavor flavor) {
  return flavor == HashFlavor::kSignedTail
             ? HashImpl<HashFlavor::kSignedTail>(data.data(), data.size(), seed)
             : HashImpl<HashFlavor::kUnsignedTail>(data.data(), data.size(), seed);
}

std::uint32_t HashResume(std::uint32_t state, ByteSpan rest, HashFlavor flavor) {
  return flavor == HashFlavor::kSignedTail
             ? ResumeImpl<HashFlavor::kSignedTail>(state, rest.data(), rest.size())
             : ResumeImpl<HashFlavor::kUnsignedTail>(state, rest.data(), rest.size());
}

std::uint32_t BloomHash(ByteSpan key, HashFlavor flavor) {
  return Hash(key, kBloomHashSeed, flavor);
}

}  // namespace bloomcodec::leveldb
