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

namespace bloomcodec {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

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

// Inflates gzip (one or more members, as `cat a.gz b.gz` produces) into `out`. Peak memory is
// about the inflated size: the reservation from InflatedSizeHint is handed to zlib 1 MiB at a
// time (so a reservation larger than the content is never touched), and once it is full a small
// spill buffer finds out whether more output follows before anything is reallocated (so a
// correct hint never doubles the buffer at the end).
Status Gunzip(ByteSpan in, const std::string& path, ByteVector& out) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::IoError(path, "zlib initialisation failed");
  constexpr std::size_t kStep = std::size_t{1} << 20;
  std::array<std::uint8_t, 1 << 15> spill;
  out.clear();
  out.reserve(InflatedSizeHint(in));
  std::size_t consumed = 0;
  std::size_t produced = 0;
  Status status;
  for (;;) {
    std::size_t chunk_in = std::min<std::size_t>(in.size() - consumed, 1u << 30);
    z.next_in = const_cast<Bytef*>(in.data() + consumed);
    z.avail_in = static_cast<uInt>(chunk_in);
    const bool spilling = produced == out.capacity();
    std::size_t room;
    if (spilling) {
      room = spill.size();
      z.next_out = spill.data();
    } else {
      out.resize(std::min(out.capacity(), produced + kStep));  // within capacity: no realloc
      room = out.size() - produced;
      z.next_out = out.data() + produced;
    }
    z.avail_out = static_cast<uInt>(room);
    int rc = inflate(&z, Z_NO_FLUSH);
    consumed += chunk_in - z.avail_in;
    const std::size_t got = room - z.avail_out;
    if (spilling && got > 0) {
      // The hint was low: grow by half (not double) and keep the spilled bytes.
      const std::size_t cap = out.capacity();
      out.reserve(std::max({cap + cap / 2, cap + got, std::size_t{4096}}));
      out.insert(out.end(), spill.data(), spill.data() + got);
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

InputFile InputFile::FromBytes(ByteVector bytes, std::string name) {
  InputFile f;
  f.path_ = std::move(name);
  f.owned_ = std::move(bytes);
  f.bytes_ = f.owned_;
  return f;
}

Result<InputFile> InputFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(path, "cannot open for reading");
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
  if (st.st_size > 0) {
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
  if (EndsWith(path, ".gz")) {
    ByteVector inflated;
    BLOOMCODEC_RETURN_IF_ERROR(Gunzip(f.bytes_, path, inflated));
    return FromBytes(std::move(inflated), path);
  }
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
