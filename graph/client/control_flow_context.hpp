#pragma once
// What a cond branch or a while loop does with each node built inside it (TF's
// ControlFlowContext): an input made outside is routed in (a branch takes it through a Switch
// on the predicate, a loop through a constant Enter), a control input from outside too, and a
// node with no data input waits on the context's pivot, so it runs only when the branch is
// taken, once per iteration. Contexts nest: routing nodes are made in the enclosing context,
// which routes their own inputs in turn.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "graph/client/scope.hpp"

namespace caflow {

class control_flow_context {
 public:
  // `outer`: where routing nodes go (the scope the cond or loop was built from).
  control_flow_context(scope outer, std::string pivot);
  virtual ~control_flow_context();
  control_flow_context(const control_flow_context&) = delete;
  control_flow_context& operator=(const control_flow_context&) = delete;

  // Called for every node built in this context before it is added.
  void add_op(node_def& n, const node_signature& sig);
  // A node built in this context or one nested in it; its outputs need no routing here.
  void add_member(const std::string& node);
  bool contains(const std::string& node) const;
  // `o` as seen in this context: itself when made inside, else routed in.
  output route(const output& o, bool as_ref = false);
  const std::string& pivot() const { return pivot_; }
  void set_pivot(std::string pivot) { pivot_ = std::move(pivot); }

 protected:
  // Makes the node that brings `o` (made outside) in, through the outer scope.
  virtual output route_in(const scope& outer, const output& o, bool as_ref) = 0;
  // What a node inside waits on for a control input `node` from outside ("^name").
  virtual std::string route_control_in(const scope& outer, const std::string& node) = 0;

 private:
  scope outer_;
  std::string pivot_;
  mutable std::mutex mu_;
  std::set<std::string> members_;
  std::map<std::string, output> routed_;  // "node:port" (ref or not) -> its value inside
};

// A branch of ops::cond: outside values come through Switch(value, pred), on the branch's side.
class cond_context final : public control_flow_context {
 public:
  cond_context(scope outer, output pred, int branch, std::string pivot);

 private:
  output route_in(const scope& outer, const output& o, bool as_ref) override;
  std::string route_control_in(const scope& outer, const std::string& node) override;
  output pred_;
  int branch_;  // 1: true
};

// The cond and body of ops::while_loop: outside values come through a constant Enter of the
// loop's frame, outside control inputs through a constant Enter of a value that waits on them.
class while_context final : public control_flow_context {
 public:
  while_context(scope outer, std::string frame_name, int64_t parallel_iterations);
  const std::string& frame_name() const { return frame_name_; }

 private:
  output route_in(const scope& outer, const output& o, bool as_ref) override;
  std::string route_control_in(const scope& outer, const std::string& node) override;
  std::string frame_name_;
  int64_t parallel_iterations_;
};

}  // namespace caflow
