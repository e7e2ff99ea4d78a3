#pragma once
// One signature of Run: which tensors are fed, which are fetched, which nodes are targets,
// by name and in the caller's order. A session and a master each prepare a graph once per
// signature (prune, optimize, place, partition) and cache it under its key; what preparing
// learned about the feeds is the signature's contract, checked on every step before anything
// runs.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/core/types.hpp"

namespace caflow {

struct run_signature {
  std::vector<std::string> feeds;    // tensor names, "node" or "node:port"
  std::vector<std::string> fetches;  // tensor names
  std::vector<std::string> targets;  // node names
};

namespace signature_detail {
inline const std::string& name_of(const std::string& feed) { return feed; }
template <class Value>
const std::string& name_of(const std::pair<std::string, Value>& feed) {
  return feed.first;
}
}  // namespace signature_detail

// The cache key: feeds, fetches and targets, in order ("x:0,|y:0,|train,"). Feeds are names,
// or (name, value) pairs as a session takes them, so that no list of names is built per step.
template <class Feed>
std::string run_signature_key(const std::vector<Feed>& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets) {
  std::string key;
  for (const Feed& f : feeds) (key += signature_detail::name_of(f)) += ',';
  key += '|';
  for (const auto& f : fetches) (key += f) += ',';
  key += '|';
  for (const auto& t : targets) (key += t) += ',';
  return key;
}

// What a prepared signature expects of a step.
struct run_contract {
  std::vector<dtype> feed_types;           // one per feed, in the signature's order
  std::vector<partial_shape> feed_shapes;  // what the full graph infers for each fed tensor
  size_t num_fetches = 0;

  // Errors (invalid_argument, naming the feed): a value that is uninitialized, or whose dtype
  // or shape the graph does not accept there.
  status check_feed(size_t i, const std::string& name, const tensor& value) const;
};

}  // namespace caflow
