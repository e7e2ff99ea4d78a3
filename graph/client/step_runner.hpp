#pragma once
// What the client library needs of a session: running a step. The runtime's `session`
// (actors/session/session.hpp) implements it; client helpers that drive steps themselves
// (train::saver) take a step_runner, so the client floor never includes the runtime, as
// TensorFlow's client code sees only the abstract Session of core/public.
#include <utility>
#include <vector>

#include "graph/client/scope.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

class step_runner {
 public:
  using feed_list = std::vector<std::pair<output, tensor>>;

  virtual ~step_runner() = default;

  // Feeds `feeds`, runs what `fetches` and `targets` need, returns the fetches in order.
  virtual status_or<std::vector<tensor>> run(const feed_list& feeds,
                                             const std::vector<output>& fetches,
                                             const std::vector<operation>& targets = {}) = 0;

  // Runs targets only (e.g. an init or train op).
  status run_targets(const std::vector<operation>& targets, const feed_list& feeds = {}) {
    auto r = run(feeds, {}, targets);
    return r.ok() ? status{} : r.get_status();
  }
};

}  // namespace caflow
