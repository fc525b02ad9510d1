#include "bloomcodec/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "codec/gunzip.h"
#include "codec/read_log.h"

namespace bloomcodec {

namespace {

// Files smaller than this are read into memory, larger ones mapped. Mapping costs a few system
// calls, a page fault and a TLB flush at unmap whatever the size; reading costs a copy. Loading a
// Filter.db (bench/run's cassandra/load rows: open, parse, popcount, close) took, mapped -> read:
// 1.9 KB 9.0 -> 3.1 us, 19 KB 10.2 -> 4.0 us, 187 KB 20 -> 12.8 us; at 1.9 MB the mapping won
// (95 against 115 us), and big files keep the zero-copy path.
constexpr std::uint64_t kReadBelowBytes = std::uint64_t{256} << 10;

Status Errno(const std::string& path, const char* what) {
  return Status::IoError(path, std::string(what) + ": " + std::strerror(errno));
}

// How many inflated bytes to reserve: the gzip trailer's ISIZE (the last 4 bytes, little-endian:
// the last member's uncompressed size mod 2^32). ISIZE is only checked once the member has been
// inflated, so a damaged or hostile file can claim anything: the hint is capped by deflate's
// largest possible expansion, 1032:1 (a 258-byte match costs at least 2 bits, so one input byte
// yields at most 4 * 258 = 1032 bytes), times the whole input. A multi-member file (cat a.gz
// b.gz) or content beyond 4 GiB gives a low hint; the buffer then grows as needed.
std::size_t InflatedSizeHint(ByteSpan in) {
  constexpr std::size_t kSmallestMember = 18;  // 10-byte header, empty deflate block, trailer
  if (in.size() < kSmallestMember) return 0;
  const std::uint8_t* t = in.data() + in.size() - 4;
  const std::uint64_t isize = std::uint64_t{t[0]} | std::uint64_t{t[1]} << 8 |
                              std::uint64_t{t[2]} << 16 | std::uint64_t{t[3]} << 24;
  const std::uint64_t most = static_cast<std::uint64_t>(in.size()) * 1032;
  return static_cast<std::size_t>(std::min(isize, most));
}

// Runs zlib over every gzip member of `in` (one or more, as `cat a.gz b.gz` produces). Output
// goes to the windows `next_window(produced)` hands out; an empty window means "no room": zlib
// then gets a one-byte probe, and only if it has more output does the run stop with
// `overflowed` set (the end of the stream, its trailer and further members need no room).
// `produced` counts the bytes written.
template <typename NextWindow>
Status InflateMembers(ByteSpan in, const std::string& path, NextWindow next_window,
                      std::size_t& produced, bool& overflowed) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::IoError(path, "zlib initialisation failed");
  std::size_t consumed = 0;
  produced = 0;
  overflowed = false;
  Status status;
  std::uint8_t probe = 0;
  for (;;) {
    std::span<std::uint8_t> window = next_window(produced);
    const bool probing = window.empty();
    if (probing) window = std::span<std::uint8_t>(&probe, 1);
    const std::size_t chunk_in = std::min<std::size_t>(in.size() - consumed, 1u << 30);
    z.next_in = const_cast<Bytef*>(in.data() + consumed);
    z.avail_in = static_cast<uInt>(chunk_in);
    z.next_out = window.data();
    z.avail_out = static_cast<uInt>(window.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    consumed += chunk_in - z.avail_in;
    const std::size_t got = window.size() - z.avail_out;
    if (probing && got > 0) {
      overflowed = true;
      break;
    }
    produced += got;
    if (rc == Z_STREAM_END) {
      if (consumed == in.size()) break;
      inflateReset(&z);  // another gzip member follows
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_out != 0) {
      status = Status::Corrupt(path, consumed, "more gzip data", "the end of the file");
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = Status::Corrupt(path, consumed, "a valid gzip stream",
                               z.msg ? std::string(z.msg) : "zlib error " + std::to_string(rc));
      break;
    }
  }
  inflateEnd(&z);
  return status;
}

// Inflates gzip into `out` with peak memory about the inflated size. First pass: into a
// reservation of InflatedSizeHint bytes, handed to zlib 1 MiB at a time (a reservation larger
// than the content is never touched). Only when the content outgrows the hint (ISIZE lies, a
// multi-member file, content beyond 4 GiB) is that buffer dropped, the exact size counted in a
// pass that keeps nothing, and the content inflated once more into exactly that much: never a
// growing buffer and its copies.
Status Gunzip(ByteSpan in, const std::string& path, ByteVector& out) {
  constexpr std::size_t kStep = std::size_t{1} << 20;
  std::size_t produced = 0;
  bool overflowed = false;
  out.clear();
  out.reserve(InflatedSizeHint(in));
  auto into_out = [&](std::size_t done) {
    out.resize(std::min(out.capacity(), done + kStep));  // within capacity: no reallocation
    return std::span<std::uint8_t>(out.data() + done, out.size() - done);
  };
  Status status = InflateMembers(in, path, into_out, produced, overflowed);
  if (!overflowed) {
    out.resize(produced);
    return status;
  }
  ByteVector().swap(out);  // released before the exact allocation
  std::array<std::uint8_t, 1 << 16> scratch;
  auto count_only = [&](std::size_t) { return std::span<std::uint8_t>(scratch); };
  BLOOMCODEC_RETURN_IF_ERROR(InflateMembers(in, path, count_only, produced, overflowed));
  const std::size_t total = produced;
  out.reserve(total);
  auto exact = [&](std::size_t done) {
    out.resize(std::min(total, done + kStep));
    return std::span<std::uint8_t>(out.data() + done, out.size() - done);
  };
  status = InflateMembers(in, path, exact, produced, overflowed);
  out.resize(produced);
  return status;
}

}  // namespace

InputFile::InputFile(InputFile&& other) noexcept { *this = std::move(other); }

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    bytes_ = other.bytes_;
    map_base_ = other.map_base_;
    map_length_ = other.map_length_;
    owned_ = std::move(other.owned_);
    if (!map_base_) bytes_ = owned_;
    other.map_base_ = nullptr;
    other.map_length_ = 0;
    other.bytes_ = {};
  }
  return *this;
}

InputFile::~InputFile() { Release(); }

void InputFile::Release() {
  if (map_base_) munmap(map_base_, map_length_);
  map_base_ = nullptr;
  map_length_ = 0;
}

void InputFile::DropPages(std::uint64_t begin, std::uint64_t end) const {
  if (!map_base_ || begin >= end) return;
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  end = std::min<std::uint64_t>(end, map_length_);
  const std::uint64_t first = begin / page * page;
  const std::uint64_t last = end == map_length_ ? end : end / page * page;
  if (first >= last) return;
  // MADV_DONTNEED on a read-only private file mapping only unmaps: nothing written is lost.
  madvise(static_cast<std::uint8_t*>(map_base_) + first, last - first, MADV_DONTNEED);
}

void InputFile::AdviseSequential() const {
  if (map_base_) madvise(map_base_, map_length_, MADV_SEQUENTIAL);
}

InputFile InputFile::FromBytes(ByteVector bytes, std::string name) {
  InputFile f;
  f.path_ = std::move(name);
  f.owned_ = std::move(bytes);
  f.bytes_ = f.owned_;
  return f;
}

Result<InputFile> InputFile::Open(const std::string& path) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile f, OpenCompressed(path));
  if (!std::string_view(path).ends_with(".gz")) return f;
  ByteVector inflated;
  BLOOMCODEC_RETURN_IF_ERROR(Gunzip(f.bytes_, path, inflated));
  return FromBytes(std::move(inflated), path);
}

Status InflateGzip(ByteSpan in, const std::string& path,
                   const std::function<Status(ByteSpan piece)>& piece) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  ByteVector buffer(kPiece);
  std::size_t delivered = 0;  // of the bytes produced so far
  Status stopped;
  // Each window handed to zlib is the whole buffer; what it wrote there since the last call is
  // handed on first. An error from `piece` ends the run: an empty window makes zlib stop at its
  // next output byte.
  auto next_window = [&](std::size_t produced) {
    if (produced > delivered && stopped.ok()) {
      stopped = piece(ByteSpan(buffer).first(produced - delivered));
    }
    delivered = produced;
    return stopped.ok() ? std::span<std::uint8_t>(buffer) : std::span<std::uint8_t>();
  };
  std::size_t produced = 0;
  bool overflowed = false;
  Status status = InflateMembers(in, path, next_window, produced, overflowed);
  if (!stopped.ok()) return stopped;
  if (produced > delivered)
    BLOOMCODEC_RETURN_IF_ERROR(piece(ByteSpan(buffer).first(produced - delivered)));
  return status;
}

Result<InputFile> InputFile::OpenCompressed(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int open_errno = errno;
    if (open_errno == ENOENT) ReadLog::RecordMissing(path);
    errno = open_errno;
    return Errno(path, "cannot open for reading");
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    Status s = Errno(path, "cannot stat");
    ::close(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::IoError(path, "is a directory, expected a file");
  }
  InputFile f;
  f.path_ = path;
  if (st.st_size > 0 && static_cast<std::uint64_t>(st.st_size) < kReadBelowBytes) {
    // A small file is read into memory: one read() costs less than setting up a mapping, its
    // page fault and tearing it down. At most st_size bytes are kept: a file that grew meanwhile
    // shows the size it had, as a mapping would; one that shrank, the bytes it still had.
    f.owned_.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < f.owned_.size()) {
      const ssize_t n = ::read(fd, f.owned_.data() + got, f.owned_.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        Status s = Errno(path, "cannot read");
        ::close(fd);
        return s;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    f.owned_.resize(got);
    f.bytes_ = f.owned_;
  } else if (st.st_size > 0) {
    void* base = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      Status s = Errno(path, "cannot map");
      ::close(fd);
      return s;
    }
    f.map_base_ = base;
    f.map_length_ = static_cast<std::size_t>(st.st_size);
    f.bytes_ = ByteSpan(static_cast<const std::uint8_t*>(base), f.map_length_);
  }
  ::close(fd);
  // Recorded once the bytes are mapped: what the caller reads is exactly this identity's file
  // (a mapping outlives an unlink or a rename over the path).
  ReadLog::RecordOpened(
      path, FileIdentity{
                static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                static_cast<std::uint64_t>(st.st_size),
                static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec});
  return f;
}

Result<InputFile> InputFile::ReadStdin() {
  ByteVector data;
  std::uint8_t buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("<stdin>", "cannot read");
    }
    if (n == 0) break;
    data.insert(data.end(), buf, buf + n);
  }
  return FromBytes(std::move(data), "<stdin>");
}

}  // namespace bloomcodec
