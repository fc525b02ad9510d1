// The Cassandra family's own flags, declared once: the command line parses them into
// CassandraOptions (bloomcodec/cassandra/options.h) and makes its help and docs/cli.md's tables
// from these declarations; only this family's code reads the options.
#include <string>

#include "bloomcodec/cassandra/options.h"
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {
namespace {

bool HasPartitioner(const FamilyOptions& o) {
  return o.Get<CassandraOptions>().partitioner != Partitioner::kFromData;
}

Status ParsePartitioner(std::string_view value, FamilyOptions& o) {
  static constexpr FlagChoice<Partitioner> kPartitioners[] = {
      {"random", Partitioner::kRandom}, {"order-preserving", Partitioner::kOrderPreserving}};
  BLOOMCODEC_ASSIGN_OR_RETURN(o.Edit<CassandraOptions>().partitioner,
                              ParseFlagChoice<Partitioner>("--partitioner", value, kPartitioners));
  return Status();
}

}  // namespace

engine::OwnFlags Flags() {
  // Index.db keys depend on the partitioner only before version e: the formats of c .. e and
  // of the versions before c.
  static const FormatCodec* const before_e[] = {Codec(Era::kLegacy), Codec(Era::kV06)};
  using enum Subcommand;
  static const FlagDecl flags[] = {
      {.name = "--partitioner",
       .value = "random|order-preserving",
       .help = "how the Index.db keys of sstables before version e were written: random "
               "(RandomPartitioner's <token>:<key>) or order-preserving (the key itself). Left "
               "out, the data decides. For files and data directories alike.",
       .subcommands = {kVerify},
       .applies_to = "Cassandra sstables before version e",
       .formats = before_e,
       .directories = DirectoryUse::kApplies,
       .parse = ParsePartitioner,
       .is_set = HasPartitioner},
  };
  return {.declared = flags};
}

}  // namespace bloomcodec::cassandra
