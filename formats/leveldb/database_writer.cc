#include "leveldb/database_writer.h"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "bloomcodec/input_file.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/verify.h"

namespace bloomcodec::leveldb {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kAmbiguous = "leveldb-1.17-or-goleveldb";
constexpr std::size_t kLogHead = 4096;

std::string Head(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(kLogHead, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

bool Digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The writer of one table from its own keys: "goleveldb", "leveldb-1.17", ... ("" unreadable).
std::string WriterOfTable(const std::string& path) {
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return "";
  TableOpenOptions options;
  options.key_kind = KeyKind::kUser;
  Result<TableReader> table = TableReader::Open(in->bytes(), path, options);
  return table.ok() ? std::string(table->writer()) : std::string();
}

}  // namespace

LogWriter LogWriterOf(std::string_view text) {
  // goleveldb (leveldb/session.go, db.go): a date banner, then "HH:MM:SS.uuuuuu <area>@<event>".
  if (text.starts_with("=============== ") &&
      (text.find(" db@open") != std::string_view::npos ||
       text.find(" log@legend") != std::string_view::npos)) {
    return LogWriter::kGoLevelDb;
  }
  // LevelDB (util/posix_logger.h): "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread id> ...".
  if (Digits(text, 0, 4) && text.size() > 27 && text[4] == '/' && text[7] == '/' &&
      text[10] == '-' && text[13] == ':' && text[16] == ':' && text[19] == '.' &&
      Digits(text, 20, 6)) {
    return LogWriter::kLevelDb;
  }
  return LogWriter::kUnknown;
}

DatabaseWriter::DatabaseWriter(std::string dir, std::vector<std::string> tables,
                               std::shared_ptr<RebuildTap> tap)
    : dir_(std::move(dir)), tables_(std::move(tables)), tap_(std::move(tap)) {}

const DatabaseWriter::Decision& DatabaseWriter::Decide(const std::string& asking) const {
  std::call_once(once_, [&] {
    for (const char* name : {"LOG", "LOG.old"}) {
      const fs::path log = fs::path(dir_) / name;
      std::error_code ec;
      if (!fs::is_regular_file(log, ec)) continue;
      const LogWriter w = LogWriterOf(Head(log));
      if (w == LogWriter::kUnknown) continue;
      decision_.goleveldb = w == LogWriter::kGoLevelDb;
      decision_.evidence = std::string("its database's ") + name + " is " +
                           (decision_.goleveldb ? "goleveldb's" : "LevelDB's");
      return;
    }
    for (const std::string& sibling : tables_) {
      if (sibling == asking) continue;
      const std::string w = WriterOfTable(sibling);
      if (w != "goleveldb" && w != "leveldb-1.17") continue;
      decision_.goleveldb = w == "goleveldb";
      decision_.evidence =
          "its sibling " + fs::path(sibling).filename().string() + " was written by " + w;
      return;
    }
  });
  return decision_;
}

FileReport DatabaseWriter::Verify(const std::string& path, const std::string& group) const {
  FileReport report =
      VerifyTable(path, KeyKind::kUser, nullptr, group, FilterWriter::kAuto, nullptr, tap_.get());
  if (report.writer != kAmbiguous) return report;
  const Decision& d = Decide(path);
  if (!d.goleveldb) return report;
  FileReport as_go = VerifyTable(path, KeyKind::kUser, nullptr, group, FilterWriter::kGoLevelDb,
                                 nullptr, tap_.get());
  as_go.Add(Severity::kInfo, finding_kind::kManifest,
            "no key of the table has a tail byte >= 0x80 to tell LevelDB 1.17's hash from "
            "goleveldb's; " +
                d.evidence + ", so the table is goleveldb's (which reads its filter)");
  return as_go;
}

}  // namespace bloomcodec::leveldb
