// FamilyOptions: what a format family's own options say (LevelDB's writer, Cassandra's
// partitioner, RocksDB's prefix extractor, ...), carried through the shared option structs
// (ProbeOptions, VerifyOptions, ConvertOptions) as one opaque value that only the family reads.
//
//   bloomcodec::ProbeOptions probe;
//   probe.family.Set(bloomcodec::leveldb::LevelDbOptions{.key_kind = bloomcodec::KeyKind::kUser});
//   // ... and inside the LevelDB family:
//   const auto mine = probe.family.Get<bloomcodec::leveldb::LevelDbOptions>();  // defaults if unset
//
// Contract: each family has one options type (bloomcodec/<family>/options.h) and the value is
// keyed by that type: Set replaces the family's value and leaves the other families' alone, Get
// returns a default-constructed value when none was set. No shared struct names a family's
// option; the command line fills these from the flags each family declares (bloomcodec/flags.h).
// The library's own callers may also hand a family an internal value this way (repair's tap on
// the RocksDB family's verify, formats/rocksdb/sst/rebuild_tap.h): no flag sets it.
#pragma once

#include <any>
#include <utility>
#include <vector>

namespace bloomcodec {

class FamilyOptions {
 public:
  // The value of T's family, or nullptr when none was set.
  template <typename T>
  const T* Find() const {
    for (const std::any& v : values_) {
      if (const T* t = std::any_cast<T>(&v)) return t;
    }
    return nullptr;
  }
  // The value of T's family, or T's defaults when none was set.
  template <typename T>
  T Get() const {
    const T* t = Find<T>();
    return t ? *t : T{};
  }
  // The value of T's family to change, default-constructed first when none was set.
  template <typename T>
  T& Edit() {
    for (std::any& v : values_) {
      if (T* t = std::any_cast<T>(&v)) return *t;
    }
    return std::any_cast<T&>(values_.emplace_back(T{}));
  }
  template <typename T>
  void Set(T value) {
    Edit<T>() = std::move(value);
  }
  bool empty() const { return values_.empty(); }

 private:
  std::vector<std::any> values_;  // at most one per family; few families, so a scan
};

}  // namespace bloomcodec
