// Internal to formats/cassandra: the check of a trie-indexed sstable's Partitions.db paths
// against the keys its payloads lead to, in the byte-comparable encoding of the sstable's version
// (key_encoding.h), and the finding it comes to.
//
//   std::optional<KeyForm> form = CheckedKeyForm(prefix, "ca", "bti");
//   PathTally tally;
//   CheckKeyPath(*form, hash, key, path, node_offset, tally);    // for each key, in key order
//   if (auto f = KeyPathFinding(tally, *form, "ca", partitions_path)) report.findings.push_back(*f);
//
// Evidence (docs/cli.md, Findings): Cassandra finds a key by following its byte-comparable form
// down the trie, so a payload whose path is not a prefix of its own key's form is a key the
// writer's reader cannot find: an `index` error. Two cases are more likely our knowledge of the
// writer than damage, and are an `unsupported` warning with nothing about the paths judged:
// every mismatched path fits the other encoding (LEGACY for OSS41 / OSS50 and back: a build that
// encodes this version's keys the other way), or no path fits at all (an encoding we do not
// know).
// Only keys of the Murmur3Partitioner and the ByteOrderedPartitioner (as Statistics.db names
// it) are checked: the other partitioners' tokens are not made here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/verify.h"
#include "cassandra/bti/key_encoding.h"

namespace bloomcodec::cassandra::bti {

// What checking some keys' paths found; tallies of consecutive runs of keys add up in key order.
struct PathTally {
  std::uint64_t checked = 0;
  std::uint64_t mismatched = 0;
  std::uint64_t other_fits = 0;  // mismatched keys whose path fits the other encoding
  std::uint64_t first_node = 0;  // the node of the first mismatched payload
  void Add(const PathTally& later);
};

// The form to check the paths of the sstable at `prefix` against; nullopt when they are not
// checked (a version whose encoding we do not know, a partitioner whose tokens are not made
// here, or no readable Statistics.db to say which).
std::optional<KeyForm> CheckedKeyForm(const std::string& prefix, std::string_view version,
                                      std::string_view sstable_format);

// Checks that `path` (the trie's transitions to the payload at `node_offset`) is a prefix of the
// form of `key`, whose Cassandra Murmur3 hash is `hash`.
void CheckKeyPath(const KeyForm& form, const Murmur3Hash& hash, ByteSpan key, ByteSpan path,
                  std::uint64_t node_offset, PathTally& tally);

// Whether a payload's hash byte is the low byte of the key's Murmur3 h1: Cassandra's (the
// filter's, with its sign-extension of tail bytes; `cassandra` is the key's) or the canonical
// one, in case a writer hashed tail bytes >= 0x80 the canonical way.
bool PayloadHashMatches(std::uint8_t hash, ByteSpan key, const Murmur3Hash& cassandra);

// The finding the tally comes to (nullopt when every checked path fits).
std::optional<Finding> KeyPathFinding(const PathTally& tally, const KeyForm& form,
                                      std::string_view version, const std::string& partitions_path);

}  // namespace bloomcodec::cassandra::bti
