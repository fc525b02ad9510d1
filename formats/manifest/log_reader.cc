// The log format of a MANIFEST (see manifest.h): 32 KiB blocks of fragments, each checked
// against its crc32c, joined into records. Three steps: FragmentScanner finds and checks the
// fragments, RecordAssembler joins them, and TornTailWarning says how the end of a log that a
// writer left half-written is read.
//
// Pebble's reader (record/record.go, Reader.nextChunk and readAheadForCorruption; recoverVersion
// in recovery.go) reads the same format with three differences. (1) It stops at the first
// fragment it cannot use (a bad checksum, type or length, a zeroed header with room for a real
// one, a recyclable header with a log number other than the MANIFEST's 0) without an error, as
// at the end of the file, and opens the database with the records before it: only a WAL-sync
// fragment after the damage could prove it damage, and a MANIFEST has none. Here such a stop is
// a torn tail (a warning) when nothing but zeros or the end of the file follows, else an error
// that says what Pebble does. (2) It skips a middle or last fragment that starts no record and
// joins a full or first fragment that comes while a record is open into that record (warnings
// here). (3) It knows WAL-sync fragments (types 9..12, a 19-byte header with the log number and
// a synced offset in the checksum).
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
  kWalSyncFullType = 9,  // Pebble only, through kWalSyncLastType = 12
  kWalSyncLastType = 12,
};

constexpr std::size_t kWalSyncHeaderSize = 19;  // Pebble: the recyclable header and a u64 offset

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

Finding TornTailWarning(Flavor flavor, TornTail what, std::uint64_t at, std::size_t have = 0,
                        std::size_t want = 0) {
  const std::string_view kDropped =
      flavor == Flavor::kPebble ? "; Pebble drops it (a writer that stopped mid-write)"
                                : "; LevelDB and RocksDB drop it (a writer that stopped mid-write)";
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
// at the end of the file, at a torn tail (a warning) or at damage (an error), after which the
// originals stop too.
class FragmentScanner {
 public:
  FragmentScanner(ByteSpan file, Flavor flavor, LogReadResult& out)
      : file_(file), flavor_(flavor), out_(out) {}

  // The next fragment, or nothing once the scan has stopped. `record_open`: a record waits for
  // its next fragment (Pebble reads a recyclable header's log number differently then).
  std::optional<Fragment> Next(bool record_open) {
    while (!stopped_ && pos_ < file_.size()) {
      const std::size_t block_left = kBlockSize - pos_ % kBlockSize;
      if (block_left < kHeaderSize) {
        // The writer pads a block tail too short for a header with zeros.
        pos_ += block_left;
        continue;
      }
      const std::size_t available = std::min(block_left, file_.size() - pos_);
      if (available < kHeaderSize) {
        return Stop(TornTailWarning(flavor_, TornTail::kHeader, pos_, available));
      }
      const std::uint8_t* h = file_.data() + pos_;
      const std::uint32_t masked = static_cast<std::uint32_t>(h[0]) | (h[1] << 8) | (h[2] << 16) |
                                   (static_cast<std::uint32_t>(h[3]) << 24);
      const std::size_t length =
          static_cast<std::size_t>(h[4]) | (static_cast<std::size_t>(h[5]) << 8);
      const std::uint8_t type = h[6];
      if (type == kZeroType && length == 0 && masked == 0) {
        if (flavor_ == Flavor::kPebble && !PebbleSkipsZeros(available)) {
          return PebbleStop(pos_, "a zeroed record header with " + std::to_string(available) +
                                      " bytes of its block left (\"zeroed chunk\")");
        }
        // Preallocated (mmap) space: the rest of the block is empty; the originals skip it.
        pos_ += block_left;
        continue;
      }
      return Checked(masked, length, type, block_left, available, record_open);
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
    if (flavor_ == Flavor::kPebble) return PebbleStop(at, std::move(message));
    return Stop(ManifestFinding(Severity::kError, std::move(message), at));
  }

  // A zeroed header: Pebble skips the rest of the block only when it cannot hold a recyclable
  // header, or a WAL-sync header and the rest is zeros.
  bool PebbleSkipsZeros(std::size_t available) const {
    if (available < kRecyclableHeaderSize) return true;
    if (available >= kWalSyncHeaderSize) return false;
    const ByteSpan rest = file_.subspan(pos_, available);
    return std::all_of(rest.begin(), rest.end(), [](std::uint8_t b) { return b == 0; });
  }

  // Pebble stops reading at the fragment at pos_ (whatever the problem at `at`) as at the end of
  // the file. When only zeros follow, the log was preallocated beyond its end: it ends here.
  std::optional<Fragment> PebbleStop(std::uint64_t at, std::string problem) {
    const ByteSpan rest = file_.subspan(pos_);
    if (std::all_of(rest.begin(), rest.end(), [](std::uint8_t b) { return b == 0; })) {
      pos_ = file_.size();
      return std::nullopt;
    }
    return Stop(ManifestFinding(
        Severity::kError,
        problem +
            "; Pebble stops reading the MANIFEST here without an error and opens the "
            "database with the " +
            std::to_string(out_.records.size()) +
            " records before it (the tables only later records add are then deleted as obsolete)",
        at));
  }

  // The header size of a fragment type, 0 for a type the flavor does not know (after a message
  // saying so).
  std::size_t HeaderSize(std::uint8_t type, std::string& unknown) const {
    if (type >= kFullType && type <= kLastType) return kHeaderSize;
    if (IsRecyclable(type) && flavor_ != Flavor::kLevelDb) return kRecyclableHeaderSize;
    if (type >= kWalSyncFullType && type <= kWalSyncLastType && flavor_ == Flavor::kPebble) {
      return kWalSyncHeaderSize;
    }
    if (IsRecyclable(type)) {
      unknown = "record type " + std::to_string(type) +
                " is RocksDB's recyclable type; LevelDB knows types 1 to 4";
    } else {
      const char* known = flavor_ == Flavor::kLevelDb   ? "4"
                          : flavor_ == Flavor::kRocksDb ? "8"
                                                        : "12";
      unknown = "record type " + std::to_string(type) + " is unknown (expected 1 to " + known + ")";
    }
    return 0;
  }

  // The fragment whose header at pos_ holds these fields, once its type, length and checksum
  // are checked.
  std::optional<Fragment> Checked(std::uint32_t masked, std::size_t length, std::uint8_t type,
                                  std::size_t block_left, std::size_t available, bool record_open) {
    std::string unknown;
    const std::size_t header = HeaderSize(type, unknown);
    if (header == 0) return Fail(pos_, unknown);
    const std::uint8_t* h = file_.data() + pos_;
    if (flavor_ == Flavor::kPebble && header > kHeaderSize && available >= header) {
      // A MANIFEST's log number is 0; 1 where a record starts is the end-of-log trailer a
      // recycled WAL carries.
      const std::uint32_t log = static_cast<std::uint32_t>(h[7]) | (h[8] << 8) | (h[9] << 16) |
                                (static_cast<std::uint32_t>(h[10]) << 24);
      if (log == 1 && !record_open) {
        return Stop(ManifestFinding(Severity::kWarning,
                                    "a fragment with log number 1 (an end-of-log trailer): Pebble "
                                    "reads no further",
                                    pos_));
      }
      if (log != 0) {
        return Fail(pos_ + 7, "a fragment of the MANIFEST's log number 0, found " +
                                  std::to_string(log) + " (\"invalid chunk\")");
      }
    }
    if (available < header || header + length > available) {
      // Past the end of the file: torn. Past the end of its block, inside the file: damage.
      if (pos_ + std::min(block_left, header + length) > file_.size()) {
        return Stop(TornTailWarning(flavor_, TornTail::kFragment, pos_, file_.size() - pos_,
                                    header + length));
      }
      return Fail(pos_ + 4, "a fragment length of at most " + std::to_string(available - header) +
                                " (the rest of its 32 KiB block), found " + std::to_string(length));
    }
    const std::uint32_t expected = blocktable::UnmaskCrc(masked);
    // Over the type, [log number, [synced offset,]] data.
    const std::uint32_t actual = blocktable::Crc32c(ByteSpan(h + 6, header - 6 + length));
    if (expected != actual) {
      return Fail(pos_, "record checksum (masked crc32c) " + Hex(masked) +
                            " does not match its bytes (" + Hex(blocktable::MaskCrc(actual)) + ")");
    }
    Fragment f;
    f.type = type;
    f.base = header == kHeaderSize ? type : header == kRecyclableHeaderSize ? type - 4 : type - 8;
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
  RecordAssembler(Flavor flavor, LogReadResult& out) : flavor_(flavor), out_(out) {}

  bool open() const { return open_; }

  // Adds a fragment; false (an error added) when it does not continue what came before.
  bool Add(const Fragment& f) {
    if (flavor_ == Flavor::kPebble) return AddAsPebble(f);
    return f.base == kFullType || f.base == kFirstType ? Start(f) : Continue(f);
  }

  // At the end of the file: a record still open never got its last fragment.
  void Finish() {
    if (open_)
      out_.findings.push_back(TornTailWarning(flavor_, TornTail::kRecord, pending_.offset));
  }

 private:
  // Pebble looks only for a full or first fragment between records and skips any other; inside
  // a record it takes whatever fragment comes, and a full or last one ends the record.
  bool AddAsPebble(const Fragment& f) {
    const bool starts = f.base == kFullType || f.base == kFirstType;
    if (!open_ && !starts) {
      out_.findings.push_back(
          ManifestFinding(Severity::kWarning,
                          "a fragment of type " + std::to_string(f.type) +
                              " (middle or last) with no first fragment before it; Pebble skips it",
                          f.at));
      return true;
    }
    if (!open_) return Start(f);
    if (starts) {
      out_.findings.push_back(ManifestFinding(
          Severity::kWarning,
          "a record starts (type " + std::to_string(f.type) + ") before the one at byte " +
              std::to_string(pending_.offset) + " ended; Pebble joins them into one record",
          f.at));
    }
    Append(f, f.base == kFullType || f.base == kLastType);
    return true;
  }

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
    Append(f, f.base == kLastType);
    return true;
  }

  void Append(const Fragment& f, bool last) {
    pending_.pieces.push_back({pending_.payload.size(), f.data_at});
    pending_.payload.insert(pending_.payload.end(), f.data.begin(), f.data.end());
    if (last) {
      open_ = false;
      out_.records.push_back(std::move(pending_));
    }
  }

  Flavor flavor_;
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
  RecordAssembler records(flavor, out);
  while (std::optional<Fragment> f = scanner.Next(records.open())) {
    if (!records.Add(*f)) return out;
  }
  // A scan stopped at a torn fragment or at damage has said so already; a record open there is
  // dropped with it.
  if (scanner.read_to_end()) records.Finish();
  return out;
}

}  // namespace bloomcodec::manifest
