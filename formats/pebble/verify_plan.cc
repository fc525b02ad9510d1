// How verify checks the Pebble family's files: a Pebble table given by itself goes through the
// block-table verify pipeline (table/verify.h); the filter formats through the generic verifier.
#include <string>
#include <vector>

#include "formats/pebble/family.h"
#include "pebble/table/verify.h"

namespace bloomcodec::pebble {
namespace {

Result<bool> PlanFile(const engine::FilePlan& plan, std::vector<VerifyTask>& tasks) {
  if (plan.format != Codec(FormatId::kTable)) return false;
  const std::string& path = plan.path;
  if (plan.options.key_source == KeySource::kIndexDb) {
    return Status::InvalidArgument("--index is a Cassandra Index.db; " + path +
                                   " is a Pebble table (its keys: --from-table)");
  }
  // The table's own keys are always checked; --from-table only says so explicitly.
  const std::string group = plan.group;
  const KeyStream* keys = plan.keys;
  tasks.push_back([path, keys, group] { return VerifyPebbleTable(path, keys, group); });
  return true;
}

}  // namespace

engine::FamilyVerify VerifyHooks() {
  engine::FamilyVerify hooks;
  hooks.directory_rank = 3;
  hooks.plan_file = PlanFile;
  return hooks;
}

}  // namespace bloomcodec::pebble
