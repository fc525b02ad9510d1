// Cassandra SSTable file names (cassandra::ParseDescriptor, the file-name parsing of `verify DIR`
// and of --format detection): any path either is refused with a message naming the file name or
// gives a descriptor whose canonical name ([ks-]cf-[tmp-]version-generation-Component, or for
// 2.2+ names [tmp-]version-id-format-Component) parses back to the same descriptor; the version's
// filter kind always has a name.
#include <string>
#include <string_view>

#include "cassandra/descriptor.h"
#include "fuzz_support.h"

using namespace bloomcodec;

namespace {

std::string Canonical(const cassandra::Descriptor& d) {
  if (!d.sstable_format.empty()) {
    return (d.temporary ? "tmp-" : "") + d.version + "-" + d.generation_id + "-" +
           d.sstable_format + "-" + d.component;
  }
  std::string name;
  if (!d.keyspace.empty()) name += d.keyspace + "-";
  name += d.column_family + "-";
  if (d.temporary) name += "tmp-";
  name += d.version + "-" + std::to_string(d.generation) + "-" + d.component;
  return name;
}

bool Same(const cassandra::Descriptor& a, const cassandra::Descriptor& b) {
  return a.keyspace == b.keyspace && a.column_family == b.column_family &&
         a.temporary == b.temporary && a.version == b.version && a.generation == b.generation &&
         a.component == b.component && a.sstable_format == b.sstable_format &&
         (a.sstable_format.empty() || a.generation_id == b.generation_id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view path(reinterpret_cast<const char*>(data), size);
  Result<cassandra::Descriptor> d = cassandra::ParseDescriptor(path);
  if (!d.ok()) {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    FUZZ_CHECK(d.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(d.status().message().find(name) != std::string::npos ||
               d.status().ToString().find(name) != std::string::npos);
    return 0;
  }
  FUZZ_CHECK(!d->component.empty() && !d->version.empty());
  // Old names carry the column family; 2.2+ names leave it to the folders.
  FUZZ_CHECK(d->column_family.empty() != d->sstable_format.empty());
  FUZZ_CHECK(d->column_family.find('-') == std::string::npos);
  FUZZ_CHECK(d->component.find('/') == std::string::npos);
  // Every name has a Filter.db era, the era of the table whose versions hold it: Murmur3 from
  // ia on (and for every BTI name), a Java BitSet before f.
  const cassandra::EraFacts& era = cassandra::Facts(d->era());
  FUZZ_CHECK(era.component == "Filter.db");
  FUZZ_CHECK((era.hash == cassandra::KeyHash::kMurmur3) ==
             (d->sstable_format == "bti" || d->version >= "ia"));
  FUZZ_CHECK((era.layout == cassandra::Layout::kJavaBitSet) ==
             (d->sstable_format != "bti" && d->version < "f"));
  // An sstable component has a written version and a known component; a look-alike has one.
  const bool written = cassandra::IsWrittenVersion(d->version, d->sstable_format);
  const bool known = cassandra::IsKnownComponent(d->component);
  switch (cassandra::ClassifyName(*d)) {
    case cassandra::NameKind::kComponent: FUZZ_CHECK(written && known); break;
    case cassandra::NameKind::kLookalike:
      FUZZ_CHECK(written != known);
      FUZZ_CHECK(!cassandra::LookalikeReason(*d).empty());
      break;
    case cassandra::NameKind::kOther: FUZZ_CHECK(!known && (!written || !d->version_in_name));
  }
  Result<cassandra::Descriptor> again = cassandra::ParseDescriptor(Canonical(*d));
  FUZZ_CHECK(again.ok() && Same(*again, *d));
  return 0;
}
