// The log format of a MANIFEST (see manifest.h): 32 KiB blocks of fragments, each checked
// against its crc32c, joined into records. Three steps: FragmentScanner finds and checks the
// fragments, RecordAssembler joins them, and TornTailWarning says how the end of a log that a
// writer left half-written is read.
#include <algorithm>
#include <cstdio>

#include "blocktable/crc32c.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest {
namespace {

// Record types of the log format.
enum : std::uint8_t {
  kZeroType = 0,
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
  kRecyclableFullType = 5,
  kRecyclableFirstType = 6,
  kRecyclableMiddleType = 7,
  kRecyclableLastType = 8,
};

std::string Hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

bool IsRecyclable(std::uint8_t type) {
  return type >= kRecyclableFullType && type <= kRecyclableLastType;
}

void AddError(LogReadResult& out, std::uint64_t at, std::string message) {
  out.findings.push_back(ManifestFinding(Severity::kError, std::move(message), at));
  out.damaged = true;
}

// What a writer that stopped mid-write leaves at the end of the file: a fragment header cut
// short, a fragment cut short, or a record whose last fragment was never written. LevelDB's and
// RocksDB's readers take it for the end of the log and drop it without an error; it is a warning
// here, and the records before it are read. Every torn end comes through this function.
enum class TornTail {
  kHeader,    // `have` of the 7 header bytes
  kFragment,  // `have` bytes of a `want`-byte fragment (header and payload)
  kRecord,    // a record started at `at` and has no last fragment
};

Finding TornTailWarning(TornTail what, std::uint64_t at, std::size_t have = 0,
                        std::size_t want = 0) {
  constexpr std::string_view kDropped =
      "; LevelDB and RocksDB drop it (a writer that stopped mid-write)";
  std::string message;
  switch (what) {
    case TornTail::kHeader:
      message = "the last record header is cut short (" + std::to_string(have) +
                " of 7 bytes) at the end of the file";
      break;
    case TornTail::kFragment:
      message = "the last record is cut short at the end of the file (" + std::to_string(have) +
                " bytes of a " + std::to_string(want) + "-byte fragment)";
      break;
    case TornTail::kRecord:
      message = "the last record (from byte " + std::to_string(at) + ") has no last fragment";
      break;
  }
  return ManifestFinding(Severity::kWarning, message + std::string(kDropped), at);
}

// One fragment, its checksum verified.
struct Fragment {
  std::uint8_t type = 0;  // as written (1..8)
  std::uint8_t base = 0;  // kFullType .. kLastType, the recyclable types mapped onto them
  ByteSpan data;
  std::uint64_t at = 0;       // its header
  std::uint64_t data_at = 0;  // its payload
};

// Finds the fragments in file order, skipping block tails and preallocated space. The scan stops
// at the end of the file, at a torn tail (a warning) or at damage (an error), after which both
// originals stop too.
class FragmentScanner {
 public:
  FragmentScanner(ByteSpan file, Flavor flavor, LogReadResult& out)
      : file_(file), flavor_(flavor), out_(out) {}

  // The next fragment, or nothing once the scan has stopped.
  std::optional<Fragment> Next() {
    while (!stopped_ && pos_ < file_.size()) {
      const std::size_t block_left = kBlockSize - pos_ % kBlockSize;
      if (block_left < kHeaderSize) {
        // The writer pads a block tail too short for a header with zeros.
        pos_ += block_left;
        continue;
      }
      const std::size_t available = std::min(block_left, file_.size() - pos_);
      if (available < kHeaderSize) {
        return Stop(TornTailWarning(TornTail::kHeader, pos_, available));
      }
      const std::uint8_t* h = file_.data() + pos_;
      const std::uint32_t masked = static_cast<std::uint32_t>(h[0]) | (h[1] << 8) | (h[2] << 16) |
                                   (static_cast<std::uint32_t>(h[3]) << 24);
      const std::size_t length =
          static_cast<std::size_t>(h[4]) | (static_cast<std::size_t>(h[5]) << 8);
      const std::uint8_t type = h[6];
      if (type == kZeroType && length == 0 && masked == 0) {
        // Preallocated (mmap) space: the rest of the block is empty; the originals skip it.
        pos_ += block_left;
        continue;
      }
      return Checked(masked, length, type, block_left, available);
    }
    return std::nullopt;
  }

  // The scan read the whole file (it did not stop at a torn tail or at damage).
  bool read_to_end() const { return !stopped_; }

 private:
  std::optional<Fragment> Stop(Finding finding) {
    if (finding.severity == Severity::kError) out_.damaged = true;
    out_.findings.push_back(std::move(finding));
    stopped_ = true;
    return std::nullopt;
  }

  std::optional<Fragment> Fail(std::uint64_t at, std::string message) {
    return Stop(ManifestFinding(Severity::kError, std::move(message), at));
  }

  // The fragment whose header at pos_ holds these fields, once its type, length and checksum
  // are checked.
  std::optional<Fragment> Checked(std::uint32_t masked, std::size_t length, std::uint8_t type,
                                  std::size_t block_left, std::size_t available) {
    const bool recyclable = IsRecyclable(type);
    if (recyclable && flavor_ == Flavor::kLevelDb) {
      return Fail(pos_, "record type " + std::to_string(type) +
                            " is RocksDB's recyclable type; LevelDB knows types 1 to 4");
    }
    if (type == kZeroType || type > kRecyclableLastType) {
      return Fail(pos_, "record type " + std::to_string(type) + " is unknown (expected 1 to " +
                            (flavor_ == Flavor::kLevelDb ? "4" : "8") + ")");
    }
    const std::size_t header = recyclable ? kRecyclableHeaderSize : kHeaderSize;
    if (available < header || header + length > available) {
      // Past the end of the file: torn. Past the end of its block, inside the file: damage.
      if (pos_ + std::min(block_left, header + length) > file_.size()) {
        return Stop(
            TornTailWarning(TornTail::kFragment, pos_, file_.size() - pos_, header + length));
      }
      return Fail(pos_ + 4, "a fragment length of at most " + std::to_string(available - header) +
                                " (the rest of its 32 KiB block), found " + std::to_string(length));
    }
    const std::uint8_t* h = file_.data() + pos_;
    const std::uint32_t expected = blocktable::UnmaskCrc(masked);
    const std::uint32_t actual =
        blocktable::Crc32c(ByteSpan(h + 6, header - 6 + length));  // type [, log number], data
    if (expected != actual) {
      return Fail(pos_, "record checksum (masked crc32c) " + Hex(masked) +
                            " does not match its bytes (" + Hex(blocktable::MaskCrc(actual)) + ")");
    }
    Fragment f;
    f.type = type;
    f.base = recyclable ? type - 4 : type;
    f.data = ByteSpan(h + header, length);
    f.at = pos_;
    f.data_at = pos_ + header;
    pos_ += header + length;
    return f;
  }

  ByteSpan file_;
  Flavor flavor_;
  LogReadResult& out_;
  std::size_t pos_ = 0;
  bool stopped_ = false;
};

// Joins fragments into records: a FULL fragment is a record, so is FIRST, MIDDLE..., LAST.
class RecordAssembler {
 public:
  explicit RecordAssembler(LogReadResult& out) : out_(out) {}

  // Adds a fragment; false (an error added) when it does not continue what came before.
  bool Add(const Fragment& f) {
    return f.base == kFullType || f.base == kFirstType ? Start(f) : Continue(f);
  }

  // At the end of the file: a record still open never got its last fragment.
  void Finish() {
    if (open_) out_.findings.push_back(TornTailWarning(TornTail::kRecord, pending_.offset));
  }

 private:
  // A FULL or FIRST fragment.
  bool Start(const Fragment& f) {
    if (open_) {
      AddError(out_, f.at,
               "a record starts (type " + std::to_string(f.type) + ") before the one at byte " +
                   std::to_string(pending_.offset) + " ended");
      return false;
    }
    pending_ = LogRecord{};
    pending_.offset = f.at;
    pending_.pieces.push_back({0, f.data_at});
    pending_.payload.assign(f.data.begin(), f.data.end());
    if (f.base == kFullType) {
      out_.records.push_back(std::move(pending_));
    } else {
      open_ = true;
    }
    return true;
  }

  // A MIDDLE or LAST fragment.
  bool Continue(const Fragment& f) {
    if (!open_) {
      AddError(out_, f.at,
               "a fragment of type " + std::to_string(f.type) +
                   " (middle or last) with no first fragment before it");
      return false;
    }
    pending_.pieces.push_back({pending_.payload.size(), f.data_at});
    pending_.payload.insert(pending_.payload.end(), f.data.begin(), f.data.end());
    if (f.base == kLastType) {
      open_ = false;
      out_.records.push_back(std::move(pending_));
    }
    return true;
  }

  LogReadResult& out_;
  LogRecord pending_;
  bool open_ = false;
};

}  // namespace

std::uint64_t LogRecord::FileOffset(std::size_t position) const {
  std::uint64_t at = offset;
  for (const auto& [start, file_at] : pieces) {
    if (start > position) break;
    at = file_at + (position - start);
  }
  return at;
}

LogReadResult ReadLogRecords(ByteSpan file, Flavor flavor) {
  LogReadResult out;
  FragmentScanner scanner(file, flavor, out);
  RecordAssembler records(out);
  while (std::optional<Fragment> f = scanner.Next()) {
    if (!records.Add(*f)) return out;
  }
  // A scan stopped at a torn fragment or at damage has said so already; a record open there is
  // dropped with it.
  if (scanner.read_to_end()) records.Finish();
  return out;
}

}  // namespace bloomcodec::manifest
