#include "cassandra/bti/partitions_db.h"

#include <algorithm>
#include <array>
#include <string>

#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra::bti {
namespace {

constexpr std::uint64_t kFooterLongs = 24;  // first-key offset, key count, root

std::uint64_t ReadBigUnsigned(ByteSpan bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | bytes[at + i];
  return v;
}

// Bytes per pointer of the whole-byte types (0 for the 4/12-bit ones).
int PointerBytes(TrieNodeType t) {
  switch (t) {
    case TrieNodeType::kSingle8:
    case TrieNodeType::kSparse8: return 1;
    case TrieNodeType::kSingle16:
    case TrieNodeType::kSparse16:
    case TrieNodeType::kDense16: return 2;
    case TrieNodeType::kSparse24:
    case TrieNodeType::kDense24: return 3;
    case TrieNodeType::kDense32: return 4;
    case TrieNodeType::kSparse40:
    case TrieNodeType::kDense40: return 5;
    case TrieNodeType::kDenseLong: return 8;
    default: return 0;
  }
}

bool IsSparse(TrieNodeType t) {
  return t >= TrieNodeType::kSparse8 && t <= TrieNodeType::kSparse40;
}
bool IsDense(TrieNodeType t) { return t >= TrieNodeType::kDense12; }

const char* TypeName(TrieNodeType t) {
  static constexpr std::array<const char*, 16> kNames = {
      "PAYLOAD_ONLY", "SINGLE_NOPAYLOAD_4", "SINGLE_8",  "SINGLE_NOPAYLOAD_12",
      "SINGLE_16",    "SPARSE_8",           "SPARSE_12", "SPARSE_16",
      "SPARSE_24",    "SPARSE_40",          "DENSE_12",  "DENSE_16",
      "DENSE_24",     "DENSE_32",           "DENSE_40",  "DENSE_LONG"};
  return kNames[static_cast<int>(t)];
}

struct Node {
  TrieNodeType type = TrieNodeType::kPayloadOnly;
  int payload_bits = 0;
  std::uint64_t payload_offset = 0;
  // Where the children go, in ascending transition order, one level deeper than `depth`.
  std::vector<TrieFrame>* children = nullptr;
  std::uint64_t depth = 0;
};

std::uint32_t Read12(ByteSpan b, std::size_t base, std::size_t i) {
  const std::size_t at = base + 3 * i / 2;
  std::uint32_t word = (std::uint32_t{b[at]} << 8) | b[at + 1];
  if ((i & 1) == 0) word >>= 4;
  return word & 0xFFF;
}

[[gnu::noinline, gnu::cold]] Status ChildPointerError(const std::string& source, TrieNodeType type,
                                                      std::uint64_t at, std::uint64_t delta,
                                                      std::uint64_t field_at) {
  return Status::Corrupt(
      source, field_at,
      std::string("a child pointer of the ") + TypeName(type) + " node at " + std::to_string(at) +
          " to an earlier offset of the file (distance 1.." + std::to_string(at) + ")",
      "distance " + std::to_string(delta));
}

// Decodes the node at `at` of trie[0, end) into `n`, appending its children to *n.children;
// every byte it reads lies inside.
Status ReadNode(ByteSpan trie, std::uint64_t at, const std::string& source, Node& n) {
  const std::uint64_t end = trie.size();
  auto need = [&](std::uint64_t size, const char* what) -> Status {
    if (size > end - at) {
      return Status::Corrupt(source, at,
                             std::string(what) + " of " + std::to_string(size) +
                                 " bytes inside the trie (which ends at " + std::to_string(end) +
                                 ")",
                             std::to_string(end - at) + " bytes left");
    }
    return Status();
  };
  const std::uint8_t head = trie[at];
  n.type = static_cast<TrieNodeType>(head >> 4);
  n.payload_bits = head & 0x0F;
  // A child is always written before its parent: a delta is > 0 and reaches no further back
  // than the file's start.
  // Small enough to be inlined into every node type's loop; the message is built out of line.
  auto child = [&](std::uint8_t transition, std::uint64_t delta, std::uint64_t field_at) -> Status {
    if (delta == 0 || delta > at) [[unlikely]] {
      return ChildPointerError(source, n.type, at, delta, field_at);
    }
    n.children->push_back({at - delta, n.depth + 1, transition});
    return Status();
  };
  const std::size_t p = static_cast<std::size_t>(at);
  switch (n.type) {
    case TrieNodeType::kPayloadOnly: n.payload_offset = at + 1; return Status();
    case TrieNodeType::kSingleNoPayload4:
      BLOOMCODEC_RETURN_IF_ERROR(need(2, "a SINGLE_NOPAYLOAD_4 node"));
      n.payload_bits = 0;
      BLOOMCODEC_RETURN_IF_ERROR(child(trie[p + 1], head & 0x0F, at));
      n.payload_offset = at + 2;
      return Status();
    case TrieNodeType::kSingleNoPayload12:
      BLOOMCODEC_RETURN_IF_ERROR(need(3, "a SINGLE_NOPAYLOAD_12 node"));
      n.payload_bits = 0;
      BLOOMCODEC_RETURN_IF_ERROR(
          child(trie[p + 2], (std::uint64_t{head & 0x0Fu} << 8) | trie[p + 1], at));
      n.payload_offset = at + 3;
      return Status();
    case TrieNodeType::kSingle8:
    case TrieNodeType::kSingle16: {
      const int w = PointerBytes(n.type);
      BLOOMCODEC_RETURN_IF_ERROR(need(2 + w, TypeName(n.type)));
      BLOOMCODEC_RETURN_IF_ERROR(child(trie[p + 1], ReadBigUnsigned(trie, p + 2, w), at + 2));
      n.payload_offset = at + 2 + w;
      return Status();
    }
    default: break;
  }
  if (IsSparse(n.type)) {
    BLOOMCODEC_RETURN_IF_ERROR(need(2, "a sparse node's header"));
    const std::size_t count = trie[p + 1];
    if (count == 0) {
      return Status::Corrupt(
          source, at + 1, std::string("a child count of 1..255 (") + TypeName(n.type) + ")", "0");
    }
    const int w = PointerBytes(n.type);
    const std::uint64_t size = n.type == TrieNodeType::kSparse12
                                   ? 2 + (5 * count + 1) / 2
                                   : 2 + (static_cast<std::uint64_t>(w) + 1) * count;
    BLOOMCODEC_RETURN_IF_ERROR(need(size, TypeName(n.type)));
    const std::size_t bytes_at = p + 2, deltas_at = p + 2 + count;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint8_t t = trie[bytes_at + i];
      if (i > 0 && t <= trie[bytes_at + i - 1]) {
        return Status::Corrupt(source, bytes_at + i, "transition bytes in ascending order",
                               std::to_string(t) + " after " +
                                   std::to_string(trie[bytes_at + i - 1]));
      }
      const std::uint64_t delta = n.type == TrieNodeType::kSparse12
                                      ? Read12(trie, deltas_at, i)
                                      : ReadBigUnsigned(trie, deltas_at + w * i, w);
      BLOOMCODEC_RETURN_IF_ERROR(child(t, delta, deltas_at + (w == 0 ? 3 * i / 2 : w * i)));
    }
    n.payload_offset = at + size;
    return Status();
  }
  // Dense: first byte, count - 1, count pointers (0: no transition).
  BLOOMCODEC_RETURN_IF_ERROR(need(3, "a dense node's header"));
  const std::size_t first = trie[p + 1], count = std::size_t{trie[p + 2]} + 1;
  if (first + count > 256) {
    return Status::Corrupt(source, at + 2,
                           "a transition range inside 0..255 (first " + std::to_string(first) + ")",
                           std::to_string(count) + " transitions");
  }
  const int w = PointerBytes(n.type);
  const std::uint64_t size = n.type == TrieNodeType::kDense12
                                 ? 3 + (3 * count + 1) / 2
                                 : 3 + static_cast<std::uint64_t>(w) * count;
  BLOOMCODEC_RETURN_IF_ERROR(need(size, TypeName(n.type)));
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t delta = n.type == TrieNodeType::kDense12
                                    ? Read12(trie, p + 3, i)
                                    : ReadBigUnsigned(trie, p + 3 + w * i, w);
    if (delta == 0) continue;
    BLOOMCODEC_RETURN_IF_ERROR(
        child(static_cast<std::uint8_t>(first + i), delta, at + 3 + (w == 0 ? 3 * i / 2 : w * i)));
  }
  if (n.children->empty()) {
    return Status::Corrupt(
        source, at, std::string("at least one child of the ") + TypeName(n.type) + " node", "none");
  }
  n.payload_offset = at + size;
  return Status();
}

}  // namespace

Result<PartitionsFooter> ReadPartitionsFooter(ByteSpan file, std::string_view source_view) {
  const std::string source(source_view);
  PartitionsFooter db;
  const std::uint64_t size = file.size();
  if (size < kFooterLongs + 4) {
    return Status::Corrupt(source, 0,
                           "a trie and a footer (two keys and three longs, at least 28 bytes)",
                           std::to_string(size) + " bytes");
  }
  ByteReader tail(file.subspan(size - kFooterLongs), source, size - kFooterLongs);
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int64_t first_at, tail.ReadBigI64("first key offset"));
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int64_t count, tail.ReadBigI64("key count"));
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::int64_t root, tail.ReadBigI64("root offset"));
  if (first_at < 0 || static_cast<std::uint64_t>(first_at) + 4 > size - kFooterLongs) {
    return Status::Corrupt(source, size - kFooterLongs,
                           "the first key's offset inside the file, before the footer's longs "
                           "(0.." +
                               std::to_string(size - kFooterLongs - 4) + ")",
                           std::to_string(first_at));
  }
  db.trie_end = static_cast<std::uint64_t>(first_at);
  ByteReader keys(file.subspan(0, size - kFooterLongs), source);
  BLOOMCODEC_RETURN_IF_ERROR(keys.Seek(db.trie_end, "first key"));
  for (ByteVector* key : {&db.first_key, &db.last_key}) {
    BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint16_t n, keys.ReadBigU16("footer key length"));
    BLOOMCODEC_ASSIGN_OR_RETURN(ByteSpan bytes, keys.ReadBytes(n, "footer key"));
    key->assign(bytes.begin(), bytes.end());
  }
  if (!keys.at_end()) {
    return keys.Error("the footer's three longs right after the last key",
                      std::to_string(keys.remaining()) + " more bytes");
  }
  // Every key has a payload of at least one byte in a node of at least one.
  if (count <= 0 || static_cast<std::uint64_t>(count) > db.trie_end / 2) {
    return Status::Corrupt(source, size - 16,
                           "a key count of 1.." + std::to_string(db.trie_end / 2) +
                               " (two bytes of trie per key at least)",
                           std::to_string(count));
  }
  db.key_count = static_cast<std::uint64_t>(count);
  if (root < 0 || static_cast<std::uint64_t>(root) >= db.trie_end) {
    return Status::Corrupt(source, size - 8,
                           "the root node's offset inside the trie (0.." +
                               std::to_string(db.trie_end - 1) + ")",
                           std::to_string(root));
  }
  db.root = static_cast<std::uint64_t>(root);
  return db;
}

PartitionsWalker::PartitionsWalker(ByteSpan file, std::string_view source,
                                   const PartitionsFooter& footer, bool check_tree,
                                   bool keep_prefixes)
    : file_(file),
      trie_(file.subspan(0, std::min<std::uint64_t>(footer.trie_end, file.size()))),
      source_(source),
      key_count_(footer.key_count),
      check_tree_(check_tree),
      keep_prefixes_(keep_prefixes) {
  if (footer.root < trie_.size()) stack_.push_back({footer.root, 0, 0});
  if (check_tree_) seen_.assign(trie_.size(), false);
}

Result<bool> PartitionsWalker::Next(PartitionPayload& out) {
  // Depth-first, children in ascending transition order: the keys in order.
  const std::uint64_t trie_end = trie_.size();
  Node n;
  n.children = &stack_;
  while (!stack_.empty()) {
    // Field by field: a copy of the whole frame compiles to one 16-byte load of the fields the
    // push just stored one by one, which the CPU cannot forward (a stall on most nodes).
    TrieFrame f;
    f.offset = stack_.back().offset;
    f.depth = stack_.back().depth;
    f.transition = stack_.back().transition;
    stack_.pop_back();
    n.depth = f.depth;
    if (check_tree_) {
      if (seen_[f.offset]) {
        return Status::Corrupt(source_, f.offset, "each node reached by one path only (a tree)",
                               "a node reached twice");
      }
      seen_[f.offset] = true;
    }
    if (keep_prefixes_ && f.depth > 0) {
      path_.resize(f.depth - 1);
      path_.push_back(f.transition);
    }
    const std::size_t first_child = stack_.size();
    BLOOMCODEC_RETURN_IF_ERROR(ReadNode(trie_, f.offset, source_, n));
    const bool leaf = stack_.size() == first_child;
    bool has_payload = false;
    if (n.payload_bits != 0) {
      const int pb = n.payload_bits;
      const int pos_bytes = pb >= 8 ? pb - 7 : pb;
      const std::uint64_t need = (pb >= 8 ? 1 : 0) + pos_bytes;
      if (n.payload_offset > trie_end || need > trie_end - n.payload_offset) {
        return Status::Corrupt(source_, f.offset,
                               "the node's " + std::to_string(need) +
                                   "-byte payload inside the trie (which ends at " +
                                   std::to_string(trie_end) + ")");
      }
      if (payloads_ == key_count_) {
        return Status::Corrupt(source_, n.payload_offset,
                               "no more payloads than the footer's key count " +
                                   std::to_string(key_count_));
      }
      out.node_offset = f.offset;
      std::size_t at = static_cast<std::size_t>(n.payload_offset);
      out.hash.reset();
      if (pb >= 8) out.hash = trie_[at++];
      std::uint64_t v = ReadBigUnsigned(trie_, at, pos_bytes);
      if (pos_bytes < 8 && (v >> (8 * pos_bytes - 1)) != 0) v |= ~0ULL << (8 * pos_bytes);
      out.position = static_cast<std::int64_t>(v);
      if (keep_prefixes_) {
        out.prefix = path_;
      } else {
        out.prefix.clear();
      }
      ++payloads_;
      has_payload = true;
      Touched(f.offset, at + pos_bytes);
    } else if (leaf) {
      return Status::Corrupt(source_, f.offset, "a payload on a leaf node (payload bits 1..15)",
                             "0");
    } else {
      Touched(f.offset, n.payload_offset);
    }
    // The smallest transition on top.
    std::reverse(stack_.begin() + static_cast<std::ptrdiff_t>(first_child), stack_.end());
    if (has_payload) return true;
  }
  if (!finished_) {
    finished_ = true;
    if (payloads_ != key_count_) {
      return Status::Corrupt(source_, file_.size() - 16,
                             "the key count the trie holds (" + std::to_string(payloads_) +
                                 " payloads)",
                             std::to_string(key_count_));
    }
  }
  return false;
}

Result<PartitionsDb> ReadPartitionsDb(ByteSpan file, std::string_view source, bool keep_prefixes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PartitionsFooter footer, ReadPartitionsFooter(file, source));
  PartitionsDb db;
  db.trie_end = footer.trie_end;
  db.key_count = footer.key_count;
  db.root = footer.root;
  db.payloads.reserve(footer.key_count);
  PartitionsWalker walk(file, source, footer, /*check_tree=*/true, keep_prefixes);
  for (;;) {
    PartitionPayload p;
    BLOOMCODEC_ASSIGN_OR_RETURN(const bool more, walk.Next(p));
    if (!more) break;
    db.payloads.push_back(std::move(p));
  }
  db.first_key = std::move(footer.first_key);
  db.last_key = std::move(footer.last_key);
  return db;
}

namespace {

// The writer's node of the trie under construction.
struct BuildNode {
  std::optional<const PartitionEntry*> payload;
  std::vector<std::pair<std::uint8_t, std::uint64_t>> children;  // written offsets
};

constexpr std::array<int, 8> kWidthBits = {4, 8, 12, 16, 24, 32, 40, 64};
constexpr std::array<TrieNodeType, 8> kSingles = {
    TrieNodeType::kSingleNoPayload4, TrieNodeType::kSingle8,  TrieNodeType::kSingleNoPayload12,
    TrieNodeType::kSingle16,         TrieNodeType::kDense24,  TrieNodeType::kDense32,
    TrieNodeType::kDense40,          TrieNodeType::kDenseLong};
constexpr std::array<TrieNodeType, 8> kSparses = {
    TrieNodeType::kSparse8,  TrieNodeType::kSparse8,  TrieNodeType::kSparse12,
    TrieNodeType::kSparse16, TrieNodeType::kSparse24, TrieNodeType::kSparse40,
    TrieNodeType::kSparse40, TrieNodeType::kDenseLong};
constexpr std::array<TrieNodeType, 8> kDenses = {TrieNodeType::kDense12, TrieNodeType::kDense12,
                                                 TrieNodeType::kDense12, TrieNodeType::kDense16,
                                                 TrieNodeType::kDense24, TrieNodeType::kDense32,
                                                 TrieNodeType::kDense40, TrieNodeType::kDenseLong};

bool Fits(std::size_t width_index, std::uint64_t delta) {
  const int bits = kWidthBits[width_index];
  return bits == 64 || delta < (std::uint64_t{1} << bits);
}

std::uint64_t NodeSize(TrieNodeType t, const BuildNode& n) {
  const std::uint64_t c = n.children.size();
  const int w = PointerBytes(t);
  switch (t) {
    case TrieNodeType::kPayloadOnly: return 1;
    case TrieNodeType::kSingleNoPayload4: return 2;
    case TrieNodeType::kSingleNoPayload12: return 3;
    case TrieNodeType::kSingle8:
    case TrieNodeType::kSingle16: return 2 + w;
    case TrieNodeType::kSparse12: return 2 + (5 * c + 1) / 2;
    default: break;
  }
  if (IsSparse(t)) return 2 + (w + 1) * c;
  const std::uint64_t span = n.children.back().first - n.children.front().first + 1;
  if (t == TrieNodeType::kDense12) return 3 + (3 * span + 1) / 2;
  return 3 + w * span;
}

// Minimal signed big-endian width of v (1..8 bytes).
int SignedBytes(std::int64_t v) {
  for (int n = 1; n < 8; ++n) {
    const std::int64_t lo = -(std::int64_t{1} << (8 * n - 1));
    const std::int64_t hi = (std::int64_t{1} << (8 * n - 1)) - 1;
    if (v >= lo && v <= hi) return n;
  }
  return 8;
}

class TrieBuilder {
 public:
  TrieBuilder(const std::vector<PartitionEntry>& entries, const TrieWriteOptions& options)
      : entries_(entries), options_(options) {}

  // Writes the sub-trie of entries [lo, hi), which share their first `depth` bytes; returns the
  // offset of its root node.
  Result<std::uint64_t> Build(std::size_t lo, std::size_t hi, std::size_t depth) {
    BuildNode node;
    std::size_t i = lo;
    if (entries_[i].prefix.size() == depth) node.payload = &entries_[i++];
    while (i < hi) {
      const std::uint8_t b = entries_[i].prefix[depth];
      std::size_t j = i;
      while (j < hi && entries_[j].prefix.size() > depth && entries_[j].prefix[depth] == b) ++j;
      if (j == i) return Status::InvalidArgument("trie entries not sorted by prefix");
      BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t at, Build(i, j, depth + 1));
      node.children.emplace_back(b, at);
      i = j;
    }
    return Write(node);
  }

  ByteVector& out() { return out_; }

 private:
  Result<std::uint64_t> Write(const BuildNode& n) {
    int pb = 0;
    std::int64_t position = 0;
    if (n.payload) {
      position = (*n.payload)->position;
      const int w = SignedBytes(position);
      if ((*n.payload)->hash) {
        pb = 7 + w;
      } else if (w <= 7) {
        pb = w;
      } else {
        return Status::InvalidArgument("a position of 8 bytes needs a hash byte (payload bits)");
      }
    }
    if (!n.children.empty() && options_.gap_bytes > 0) {
      out_.insert(out_.end(), options_.gap_bytes, 0);
    }
    const std::uint64_t at = out_.size();
    TrieNodeType t = TrieNodeType::kPayloadOnly;
    if (!n.children.empty()) {
      std::uint64_t max_delta = 0;
      for (const auto& [b, child] : n.children) max_delta = std::max(max_delta, at - child);
      std::size_t w = 0;
      while (!Fits(w, max_delta) || kWidthBits[w] < options_.min_pointer_bits) ++w;
      if (n.children.size() == 1 && options_.shape == TrieWriteOptions::Shape::kSmallest) {
        if (pb != 0 && PointerBytes(kSingles[w]) == 0 && !IsDense(kSingles[w])) ++w;
        t = kSingles[w];
      } else if (options_.shape == TrieWriteOptions::Shape::kSparse) {
        t = kSparses[w];
      } else if (options_.shape == TrieWriteOptions::Shape::kDense) {
        t = kDenses[w];
      } else {
        t = NodeSize(kSparses[w], n) < NodeSize(kDenses[w], n) ? kSparses[w] : kDenses[w];
      }
    }
    const std::uint8_t head = static_cast<std::uint8_t>((static_cast<int>(t) << 4) | pb);
    const int w = PointerBytes(t);
    switch (t) {
      case TrieNodeType::kPayloadOnly: out_.push_back(head); break;
      case TrieNodeType::kSingleNoPayload4:
        out_.push_back(static_cast<std::uint8_t>(0x10 | (at - n.children[0].second)));
        out_.push_back(n.children[0].first);
        break;
      case TrieNodeType::kSingleNoPayload12: {
        const std::uint64_t d = at - n.children[0].second;
        out_.push_back(static_cast<std::uint8_t>(0x30 | (d >> 8)));
        out_.push_back(static_cast<std::uint8_t>(d));
        out_.push_back(n.children[0].first);
        break;
      }
      case TrieNodeType::kSingle8:
      case TrieNodeType::kSingle16:
        out_.push_back(head);
        out_.push_back(n.children[0].first);
        AppendBigEndian(out_, at - n.children[0].second, w);
        break;
      default:
        if (IsSparse(t)) {
          out_.push_back(head);
          out_.push_back(static_cast<std::uint8_t>(n.children.size()));
          for (const auto& c : n.children) out_.push_back(c.first);
          if (t == TrieNodeType::kSparse12) {
            std::size_t i = 0;
            for (; i + 2 <= n.children.size(); i += 2) {
              const std::uint64_t p0 = at - n.children[i].second;
              const std::uint64_t p1 = at - n.children[i + 1].second;
              out_.push_back(static_cast<std::uint8_t>(p0 >> 4));
              out_.push_back(static_cast<std::uint8_t>((p0 << 4) | (p1 >> 8)));
              out_.push_back(static_cast<std::uint8_t>(p1));
            }
            if (i < n.children.size()) AppendBigEndian(out_, (at - n.children[i].second) << 4, 2);
          } else {
            for (const auto& c : n.children) AppendBigEndian(out_, at - c.second, w);
          }
        } else {
          out_.push_back(head);
          const int first = n.children.front().first;
          const int last = n.children.back().first;
          out_.push_back(static_cast<std::uint8_t>(first));
          out_.push_back(static_cast<std::uint8_t>(last - first));
          std::vector<std::uint64_t> deltas(last - first + 1, 0);
          for (const auto& c : n.children) deltas[c.first - first] = at - c.second;
          if (t == TrieNodeType::kDense12) {
            std::uint8_t carry = 0;
            for (std::size_t i = 0; i < deltas.size(); ++i) {
              if ((i & 1) == 0) {
                out_.push_back(static_cast<std::uint8_t>(deltas[i] >> 4));
                carry = static_cast<std::uint8_t>(deltas[i] << 4);
              } else {
                out_.push_back(static_cast<std::uint8_t>(carry | (deltas[i] >> 8)));
                out_.push_back(static_cast<std::uint8_t>(deltas[i]));
                carry = 0;
              }
            }
            if (deltas.size() & 1) out_.push_back(carry);
          } else {
            for (std::uint64_t d : deltas) AppendBigEndian(out_, d, w);
          }
        }
    }
    if (pb != 0) {
      if ((*n.payload)->hash) out_.push_back(*(*n.payload)->hash);
      AppendBigEndian(out_, static_cast<std::uint64_t>(position), pb >= 8 ? pb - 7 : pb);
    }
    return at;
  }

  const std::vector<PartitionEntry>& entries_;
  const TrieWriteOptions& options_;
  ByteVector out_;
};

}  // namespace

Result<ByteVector> WritePartitionsDb(const std::vector<PartitionEntry>& entries, ByteSpan first_key,
                                     ByteSpan last_key, const TrieWriteOptions& options) {
  if (entries.empty()) return Status::InvalidArgument("a partition index needs a key");
  for (std::size_t i = 1; i < entries.size(); ++i) {
    const ByteVector& a = entries[i - 1].prefix;
    const ByteVector& b = entries[i].prefix;
    if (!std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end())) {
      return Status::InvalidArgument("trie entries not sorted by prefix, or repeated");
    }
  }
  if (first_key.size() > 0xFFFF || last_key.size() > 0xFFFF) {
    return Status::InvalidArgument("a key longer than 65535 bytes");
  }
  TrieBuilder builder(entries, options);
  BLOOMCODEC_ASSIGN_OR_RETURN(const std::uint64_t root, builder.Build(0, entries.size(), 0));
  ByteVector& out = builder.out();
  const std::uint64_t first_at = out.size();
  for (ByteSpan key : {first_key, last_key}) {
    AppendBigEndian(out, key.size(), 2);
    out.insert(out.end(), key.begin(), key.end());
  }
  AppendBigEndian(out, first_at, 8);
  AppendBigEndian(out, entries.size(), 8);
  AppendBigEndian(out, root, 8);
  return std::move(out);
}

}  // namespace bloomcodec::cassandra::bti
