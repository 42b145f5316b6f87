// Content identity of requests' leading tokens, for prefix caching
// (docs/serving.md, "Prefix caching"): a request's tokens are named by a
// chain of segments, each a stream id and where it ends ("sys3:1000/conv17":
// tokens [0, 1000) are stream sys3's, the rest stream conv17's, both at
// their own positions). Chains are interned into a tree: node n stands for
// every segment from the root down to n, so two requests whose tokens
// [0, k) are covered by the same segments (ids and ends) reach the same node
// for them, and a KV block is keyed by (node, block index) with no hash
// collision possible.
//
// Interning a segment is one hash look-up, O(1) on average; a node takes 16
// bytes and its hash entry. Owned by the run's arrival process (it makes the
// chains), read by every replica's cache.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace podsim::fleet {

class PrefixChains {
 public:
  static constexpr uint32_t kRoot = 0;  // no named content
  // A segment without an end: its stream runs on to the request's end
  // (prompt and output), as a conversation's history does.
  static constexpr uint32_t kOpenEnd = std::numeric_limits<uint32_t>::max();

  struct Node {
    uint32_t parent = kRoot;
    uint32_t stream = 0;
    uint32_t end = 0;    // exclusive token position, or kOpenEnd
    uint32_t depth = 0;  // segments from the root
  };

  PrefixChains();

  // The stream named `name` (interned), or a new one no name refers to.
  uint32_t stream(std::string_view name);
  uint32_t new_stream() { return streams_++; }
  // The chain `parent` followed by tokens [parent's end, end) of `stream`
  // (interned). `end` must exceed the parent's end; kOpenEnd only last.
  uint32_t extend(uint32_t parent, uint32_t stream, uint32_t end);

  const Node& node(uint32_t n) const { return nodes_[n]; }
  size_t size() const { return nodes_.size(); }
  // Tokens of a request of `length` tokens that its chain names.
  uint32_t covered(uint32_t node, uint32_t length) const;
  // The chain's nodes root first (the root left out), into `out` (cleared).
  void path(uint32_t node, std::vector<uint32_t>& out) const;

 private:
  struct Key {
    uint32_t parent;
    uint32_t stream;
    uint32_t end;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = (uint64_t{k.parent} << 32 | k.stream) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h ^ (h >> 29) ^ (uint64_t{k.end} * 0xC2B2AE3D27D4EB4Full));
    }
  };

  std::vector<Node> nodes_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::unordered_map<std::string, uint32_t> names_;
  uint32_t streams_ = 0;
};

}  // namespace podsim::fleet
