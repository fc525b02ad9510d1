// The flags as declared (the command line's own in tools/command_flags.cc, each family's in its
// folder): docs/cli.md's generated parts are what the declarations give, the help and the
// parser take every declared flag, and each family flag is read by its family alone.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "bloomcodec/cassandra/options.h"
#include "bloomcodec/flags.h"
#include "bloomcodec/leveldb/options.h"
#include "bloomcodec/rocksdb/options.h"
#include "cli_docs.h"
#include "command_flags.h"
#include "usage.h"

namespace bloomcodec::tool {
namespace {

constexpr Subcommand kAll[] = {Subcommand::kBuild,   Subcommand::kProbe,   Subcommand::kHash,
                               Subcommand::kSize,    Subcommand::kInspect, Subcommand::kVerify,
                               Subcommand::kConvert, Subcommand::kDump,    Subcommand::kRepair};

std::string ReadDocs() {
  std::ifstream in(BLOOMCODEC_CLI_DOCS, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Flags, DocsAreWhatTheDeclarationsGive) {
  const std::string docs = ReadDocs();
  ASSERT_FALSE(docs.empty()) << BLOOMCODEC_CLI_DOCS;
  Result<std::string> updated = UpdateCliDocs(docs);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  // On failure: run scripts/update-cli-docs and commit docs/cli.md.
  EXPECT_TRUE(*updated == docs) << "docs/cli.md differs from the flag declarations: run "
                                   "scripts/update-cli-docs";
  for (const FamilyFlag& f : FamilyFlags()) {
    EXPECT_NE(docs.find("| `" + std::string(f.decl->name) + "` |"), std::string::npos)
        << f.decl->name;
  }
}

TEST(Flags, GeneratedPartsAreCheckedForShape) {
  const std::string begin =
      "<!-- generated flags: scripts/update-cli-docs writes what follows -->\n";
  const std::string end = "<!-- end of generated flags -->\n";
  Result<std::string> missing = UpdateCliDocs(begin + end);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("is missing"), std::string::npos);
  Result<std::string> unclosed = UpdateCliDocs(begin);
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.status().ToString().find("end of generated flags"), std::string::npos);
  Result<std::string> unknown =
      UpdateCliDocs("<!-- generated nonsense: scripts/update-cli-docs writes what follows -->\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().ToString().find("nonsense"), std::string::npos);
}

// Every family flag is in its subcommands' usage line, help and parser, and nowhere else.
TEST(Flags, HelpAndParserTakeEveryDeclaredFlag) {
  for (Subcommand s : kAll) {
    const std::string name(SubcommandName(s));
    SCOPED_TRACE(name);
    const std::string synopsis = Synopsis(s);
    const std::string help = SubcommandHelp(name);
    const std::vector<FlagSpec> specs = SubcommandFlags(s);
    for (const FamilyFlag& f : FamilyFlags()) {
      const FlagDecl& d = *f.decl;
      const bool here = d.subcommands.has(s);
      EXPECT_EQ(synopsis.find("[" + std::string(d.name)) != std::string::npos, here) << d.name;
      EXPECT_EQ(help.find("  " + std::string(d.name)) != std::string::npos, here) << d.name;
      const bool parsed = std::any_of(specs.begin(), specs.end(), [&](const FlagSpec& spec) {
        return spec.name == d.name && spec.takes_value == !d.value.empty();
      });
      EXPECT_EQ(parsed, here) << d.name;
    }
    for (const FlagDecl& d : CommandFlags()) {
      const bool parsed = std::any_of(specs.begin(), specs.end(),
                                      [&](const FlagSpec& spec) { return spec.name == d.name; });
      EXPECT_EQ(parsed, d.subcommands.has(s)) << d.name;
    }
  }
}

TEST(Flags, EachFamilyReadsItsOwnFlags) {
  FamilyOptions options;
  ASSERT_TRUE(ParseFamilyFlag(Subcommand::kVerify, "--writer", "goleveldb", options).ok());
  ASSERT_TRUE(ParseFamilyFlag(Subcommand::kVerify, "--partitioner", "random", options).ok());
  ASSERT_TRUE(ParseFamilyFlag(Subcommand::kVerify, "--key-kind", "user", options).ok());
  EXPECT_EQ(options.Get<leveldb::LevelDbOptions>().writer, leveldb::FilterWriter::kGoLevelDb);
  EXPECT_EQ(options.Get<cassandra::CassandraOptions>().partitioner,
            cassandra::Partitioner::kRandom);
  // Both table families declare --key-kind: each has it in its own options.
  EXPECT_EQ(options.Get<leveldb::LevelDbOptions>().key_kind, KeyKind::kUser);
  EXPECT_EQ(options.Get<rocksdb::RocksDbOptions>().key_kind, KeyKind::kUser);
  EXPECT_TRUE(options.Get<rocksdb::RocksDbOptions>().prefix_extractor.empty());

  // A flag not declared for the subcommand, and bad values in the family's own words.
  EXPECT_FALSE(ParseFamilyFlag(Subcommand::kProbe, "--partitioner", "random", options).ok());
  Status bad = ParseFamilyFlag(Subcommand::kVerify, "--prefix-extractor", "fixed:0", options);
  EXPECT_EQ(bad.ToString(),
            "--prefix-extractor: expected fixed:N, capped:N (N >= 1) or noop, found 'fixed:0'");
  bad = ParseFamilyFlag(Subcommand::kProbe, "--writer", "nobody", options);
  EXPECT_EQ(bad.ToString(),
            "--writer: expected one of leveldb, leveldb-1.17, goleveldb, found 'nobody'");
  // Basho's builds, by the names --basho-build takes (probe and verify only).
  ASSERT_TRUE(ParseFamilyFlag(Subcommand::kProbe, "--basho-build", "armv7", options).ok());
  EXPECT_EQ(options.Get<leveldb::LevelDbOptions>().basho_build, "armv7");
  bad = ParseFamilyFlag(Subcommand::kVerify, "--basho-build", "sparc", options);
  EXPECT_EQ(bad.ToString(),
            "--basho-build: expected one of x86-64, arm64-linux, arm64-macos, i386, armv7, found "
            "'sparc'");
  EXPECT_FALSE(ParseFamilyFlag(Subcommand::kConvert, "--basho-build", "i386", options).ok());
}

// Where a flag does not apply: refused in its family's words, or ignored, as declared.
TEST(Flags, AFlagForAnotherFamilysFileIsRefusedOrIgnoredAsDeclared) {
  const FormatCodec* table = FindFormat("leveldb-table");
  const FormatCodec* sst = FindFormat("rocksdb-sst");
  const FormatCodec* legacy = FindFormat("cassandra-legacy");
  ASSERT_TRUE(table && sst && legacy);
  FamilyOptions writer;
  leveldb::LevelDbOptions leveldb117;
  leveldb117.writer = leveldb::FilterWriter::kLevelDb117;
  writer.Set(leveldb117);
  EXPECT_TRUE(
      CheckFamilyFlags(Subcommand::kProbe, writer, {.path = "t.ldb", .format = table}).ok());
  EXPECT_EQ(
      CheckFamilyFlags(Subcommand::kProbe, writer, {.path = "x.sst", .format = sst}).ToString(),
      "--writer applies to LevelDB tables (leveldb-table); x.sst is rocksdb-sst");
  FamilyOptions partitioner;
  partitioner.Set(cassandra::CassandraOptions{.partitioner = cassandra::Partitioner::kRandom});
  EXPECT_TRUE(
      CheckFamilyFlags(Subcommand::kVerify, partitioner, {.path = "t.ldb", .format = table}).ok());
  // The rewrite flags need the table and --to its own format.
  FamilyOptions no_filter;
  ASSERT_TRUE(ParseFamilyFlag(Subcommand::kConvert, "--no-filter", "", no_filter).ok());
  EXPECT_TRUE(
      CheckFamilyFlags(Subcommand::kConvert, no_filter, {.path = "x.sst", .format = sst, .to = sst})
          .ok());
  EXPECT_EQ(CheckFamilyFlags(Subcommand::kConvert, no_filter,
                             {.path = "t.ldb", .format = table, .to = legacy})
                .ToString(),
            "--no-filter and --legacy-1.17 rewrite a table's filter: they need a leveldb-table "
            "input and --to leveldb-table");
}

}  // namespace
}  // namespace bloomcodec::tool
