#include "pebble/colblk/key_schema.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace bloomcodec::pebble::colblk {

namespace {

constexpr std::string_view kDefaultPrefix = "DefaultKeySchema(";

int CompareBytes(ByteSpan a, ByteSpan b) {
  const std::size_t n = std::min(a.size(), b.size());
  const int r = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (r != 0) return r < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

bool SameBytes(ByteSpan a, ByteSpan b) { return CompareBytes(a, b) == 0; }

KeyComparer ComparerNamed(std::string_view name) {
  if (name == kBytewiseComparatorName) return KeyComparer::kBytewise;
  if (name == kCockroachComparatorName) return KeyComparer::kCockroach;
  return KeyComparer::kUnknown;
}

// A version without its length byte, as cockroachkvs compares it (normalizeVersionForCompare):
// a 13-byte version (synthetic bit) as its first 12; a 12-byte one with logical time 0 as 8.
ByteSpan NormalizeVersion(ByteSpan v) {
  if (v.size() == 13) v = v.first(12);
  if (v.size() == 12 && v[8] == 0 && v[9] == 0 && v[10] == 0 && v[11] == 0) v = v.first(8);
  return v;
}

// A suffix (version and length byte) to its normalized version.
ByteSpan NormalizeSuffix(ByteSpan s) { return NormalizeVersion(s.first(s.size() - 1)); }

// The suffix length a key's last byte gives, kept inside the key (malformed keys do not crash).
std::size_t SuffixLength(ByteSpan key) { return std::min<std::size_t>(key.back(), key.size()); }

}  // namespace

DataType KeySchema::column_type(int i) const {
  if (kind == KeySchemaKind::kDefault) return i == 0 ? DataType::kPrefixBytes : DataType::kBytes;
  static constexpr DataType kCrdb1[] = {DataType::kPrefixBytes, DataType::kUint, DataType::kUint,
                                        DataType::kBytes};
  return kCrdb1[i];
}

std::string_view KeySchema::column_name(int i) const {
  if (kind == KeySchemaKind::kDefault) return i == 0 ? "key prefixes" : "key suffixes";
  static constexpr std::string_view kCrdb1[] = {"roach keys", "MVCC wall times",
                                                "MVCC logical times", "untyped versions"};
  return kCrdb1[i];
}

KeySchema DefaultKeySchema(std::string_view comparer_name, std::uint32_t bundle_size) {
  KeySchema s;
  s.kind = KeySchemaKind::kDefault;
  s.comparer_name = std::string(comparer_name);
  s.comparer = ComparerNamed(comparer_name);
  s.bundle_size = bundle_size;
  s.name = std::string(kDefaultPrefix) + s.comparer_name + "," + std::to_string(bundle_size) + ")";
  return s;
}

KeySchema Crdb1KeySchema() {
  KeySchema s;
  s.kind = KeySchemaKind::kCrdb1;
  s.name = std::string(kCrdb1SchemaName);
  s.comparer_name = std::string(kCockroachComparatorName);
  s.comparer = KeyComparer::kCockroach;
  s.bundle_size = 16;
  return s;
}

Result<KeySchema> FindKeySchema(std::string_view name) {
  if (name == kCrdb1SchemaName) return Crdb1KeySchema();
  const std::size_t comma = name.rfind(',');
  if (name.starts_with(kDefaultPrefix) && name.ends_with(")") && comma != std::string_view::npos &&
      comma >= kDefaultPrefix.size()) {
    const std::string_view digits = name.substr(comma + 1, name.size() - comma - 2);
    std::uint32_t bundle = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), bundle);
    // Pebble's PrefixBytesBuilder needs a power of two.
    if (error == std::errc() && end == digits.data() + digits.size() && !digits.empty() &&
        bundle > 0 && (bundle & (bundle - 1)) == 0) {
      return DefaultKeySchema(name.substr(kDefaultPrefix.size(), comma - kDefaultPrefix.size()),
                              bundle);
    }
  }
  return Status::Unsupported("unknown key schema \"" + std::string(name) +
                             "\"; known key schemas: \"DefaultKeySchema(<comparer>,<bundle "
                             "size>)\", \"crdb1\" (Pebble's reader panics on an unknown one)");
}

int CompareUserKeys(KeyComparer comparer, ByteSpan a, ByteSpan b) {
  if (comparer == KeyComparer::kCockroach) return cockroach::Compare(a, b);
  return CompareBytes(a, b);
}

std::size_t SplitUserKey(KeyComparer comparer, ByteSpan key) {
  return comparer == KeyComparer::kCockroach ? cockroach::Split(key) : key.size();
}

bool EqualUserKeys(KeyComparer comparer, ByteSpan a, ByteSpan b) {
  return comparer == KeyComparer::kCockroach ? cockroach::Equal(a, b) : SameBytes(a, b);
}

namespace cockroach {

bool ValidEngineKey(ByteSpan key) {
  if (key.empty()) return true;
  return key.back() < key.size() && key.back() != 1;
}

std::size_t Split(ByteSpan key) { return key.empty() ? 0 : key.size() - SuffixLength(key); }

int Compare(ByteSpan a, ByteSpan b) {
  if (a.empty() || b.empty()) return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  const std::size_t as = SuffixLength(a);
  const std::size_t bs = SuffixLength(b);
  if (int c = CompareBytes(a.first(a.size() - as), b.first(b.size() - bs)); c != 0) return c;
  if (as == 0 || bs == 0) return as < bs ? -1 : (as > bs ? 1 : 0);
  // Newer versions first: the comparison of the normalized versions, reversed.
  return CompareBytes(NormalizeSuffix(b.last(bs)), NormalizeSuffix(a.last(as)));
}

int ComparePointSuffixes(ByteSpan a, ByteSpan b) {
  if (a.empty() || b.empty()) return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  return CompareBytes(NormalizeSuffix(b), NormalizeSuffix(a));
}

bool Equal(ByteSpan a, ByteSpan b) {
  if (a.empty() || b.empty()) return a.size() == b.size();
  const std::size_t as = SuffixLength(a);
  const std::size_t bs = SuffixLength(b);
  constexpr std::size_t kWithWall = 9;
  constexpr std::size_t kWithLockTable = 18;
  if ((as <= kWithWall && bs <= kWithWall) || (as == kWithLockTable && bs == kWithLockTable) ||
      as == 0 || bs == 0) {
    return SameBytes(a, b);
  }
  if (!SameBytes(a.first(a.size() - as), b.first(b.size() - bs))) return false;
  return SameBytes(NormalizeSuffix(a.last(as)), NormalizeSuffix(b.last(bs)));
}

}  // namespace cockroach

}  // namespace bloomcodec::pebble::colblk
