#include "cassandra/bti/key_encoding.h"

#include <limits>

namespace bloomcodec::cassandra::bti {
namespace {

constexpr int kEnd = -1;
constexpr std::uint8_t kNextComponent = 0x40;
constexpr std::uint8_t kTerminator = 0x38;
constexpr std::uint8_t kEscape = 0x00;
constexpr std::uint8_t kEscapedZeroContinues = 0xFE;
constexpr std::uint8_t kEscapedZeroDone = 0xFF;

// ByteSource.of(bytes, version): the bytes with their zeros escaped, ended by 0x00 (0xFE inside
// an escape, LEGACY then adds 0x00), one byte at a time.
class EscapedBytes {
 public:
  EscapedBytes(ByteSpan bytes, bool legacy) : bytes_(bytes), legacy_(legacy) {}

  int Next() {
    if (at_ < bytes_.size()) {
      const std::uint8_t b = bytes_[at_];
      if (!escaped_) {
        ++at_;
        escaped_ = b == kEscape;
        return b;
      }
      if (b == kEscape) {
        ++at_;
        return kEscapedZeroContinues;
      }
      escaped_ = false;  // the byte itself comes at the next call
      return kEscapedZeroDone;
    }
    if (at_ > bytes_.size()) return kEnd;
    if (escaped_) {
      escaped_ = false;
      if (!legacy_) ++at_;  // LEGACY stays at the end once more, for the plain 0x00
      return kEscapedZeroContinues;
    }
    ++at_;
    return kEscape;
  }

 private:
  ByteSpan bytes_;
  bool legacy_;
  std::size_t at_ = 0;
  bool escaped_ = false;
};

// The byte-comparable form of a partition key (key_encoding.h says how it is made), one byte at
// a time: NEXT_COMPONENT, the token, NEXT_COMPONENT, the escaped key, the terminator.
class KeyFormBytes {
 public:
  KeyFormBytes(const KeyForm& form, std::int64_t token, ByteSpan key)
      : form_(form),
        token_(static_cast<std::uint64_t>(token) ^ (std::uint64_t{1} << 63)),
        token_bytes_(key, form.encoding == KeyEncoding::kLegacy),
        key_bytes_(key, form.encoding == KeyEncoding::kLegacy) {}

  int Next() {
    int b = kEnd;
    switch (step_) {
      case 0: step_ = 1; return kNextComponent;
      case 1:
        b = form_.token == TokenKind::kMurmur3 ? NextTokenByte() : token_bytes_.Next();
        if (b != kEnd) return b;
        step_ = 2;
        return kNextComponent;
      case 2:
        b = key_bytes_.Next();
        if (b != kEnd) return b;
        step_ = 3;
        return form_.encoding == KeyEncoding::kLegacy ? kEnd : kTerminator;
      default: return kEnd;
    }
  }

 private:
  // The Murmur3 token: 8 big-endian bytes, the sign bit flipped.
  int NextTokenByte() {
    if (token_at_ == 8) return kEnd;
    return static_cast<int>((token_ >> (8 * (7 - token_at_++))) & 0xFF);
  }

  KeyForm form_;
  std::uint64_t token_;
  EscapedBytes token_bytes_, key_bytes_;  // the byte-ordered token is the key itself
  int step_ = 0;
  int token_at_ = 0;
};

}  // namespace

std::string_view KeyEncodingName(KeyEncoding e) {
  switch (e) {
    case KeyEncoding::kLegacy: return "LEGACY";
    case KeyEncoding::kOss41: return "OSS41";
    case KeyEncoding::kOss50: return "OSS50";
  }
  return "?";
}

std::optional<KeyEncoding> TrieKeyEncoding(std::string_view version,
                                           std::string_view sstable_format) {
  if (sstable_format != "bti") return std::nullopt;
  if (version >= "da") return KeyEncoding::kOss50;
  if (version >= "ca") return KeyEncoding::kOss41;
  return KeyEncoding::kLegacy;
}

std::int64_t Murmur3Token(const Murmur3Hash& h, std::size_t key_size) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  if (key_size == 0) return kMin;
  return h.h0 == kMin ? std::numeric_limits<std::int64_t>::max() : h.h0;
}

void AppendKeyForm(const KeyForm& form, std::int64_t token, ByteSpan key, ByteVector& out) {
  KeyFormBytes bytes(form, token, key);
  for (int b = bytes.Next(); b != kEnd; b = bytes.Next())
    out.push_back(static_cast<std::uint8_t>(b));
}

bool IsKeyFormPrefix(const KeyForm& form, std::int64_t token, ByteSpan key, ByteSpan path) {
  KeyFormBytes bytes(form, token, key);
  for (const std::uint8_t p : path) {
    if (bytes.Next() != p) return false;  // kEnd never equals a byte
  }
  return true;
}

}  // namespace bloomcodec::cassandra::bti
