// The registry: the one place that lists the format families. Everything the engines know
// about a format comes from its family's registration (engine/family.h).
#include <algorithm>
#include <vector>

#include "bloomcodec/format.h"
#include "engine/family.h"
#include "formats/cassandra/family.h"
#include "formats/leveldb/family.h"
#include "formats/pebble/family.h"
#include "formats/rocksdb/family.h"

namespace bloomcodec {
namespace engine {

std::span<const Family* const> Families() {
  static const Family* const families[] = {
      &cassandra::TheFamily(),
      &leveldb::TheFamily(),
      &rocksdb::TheFamily(),
      &pebble::TheFamily(),
  };
  return families;
}

const Family* FamilyOf(const FormatCodec* format) {
  if (!format) return nullptr;
  for (const Family* family : Families()) {
    const auto& formats = family->formats;
    if (std::find(formats.begin(), formats.end(), format) != formats.end()) return family;
  }
  return nullptr;
}

std::vector<const ConversionRule*> AllConversionRules() {
  std::vector<const ConversionRule*> rules;
  for (const Family* family : Families()) {
    for (const ConversionRule& r : family->conversions) rules.push_back(&r);
  }
  return rules;
}

}  // namespace engine

std::span<const FormatCodec* const> AllFormats() {
  static const std::vector<const FormatCodec*> all = [] {
    std::vector<const FormatCodec*> v;
    for (const engine::Family* family : engine::Families()) {
      v.insert(v.end(), family->formats.begin(), family->formats.end());
    }
    return v;
  }();
  return all;
}

}  // namespace bloomcodec
