#pragma once
// The C++ client API for building graphs, in the spirit of TensorFlow's:
//
//   auto root = scope::new_root();
//   auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
//   auto w = ops::constant(root, tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
//   auto y = ops::mat_mul(root.new_sub_scope("layer"), x, w, {.transpose_b = true});
//
// A scope is a cheap value: derived scopes (name scope, device, control dependencies,
// colocation) share one graph under construction. The first error while adding a node is kept
// in the scope (`status()`), later additions are skipped, and running the graph reports it.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/graph_def.hpp"
#include "graph/ir/node_signature.hpp"

namespace caflow {

// One output of a node: node name, output index and dtype.
// Constructed explicitly (not an aggregate) so a brace list like {0, 1} passed to an ops::
// function means a vector of ints, never an output.
struct output {
  output() = default;
  output(std::string node_name, int output_index, dtype output_type)
      : node(std::move(node_name)), index(output_index), type(output_type) {}

  std::string node;
  int index = 0;
  dtype type = dtype::invalid;

  std::string name() const { return tensor_name(node, index); }
  bool valid() const { return !node.empty(); }
};

// A node in the graph under construction.
struct operation {
  std::string node;
  std::vector<dtype> output_types;

  output out(int i = 0) const {
    return {node, i, i < static_cast<int>(output_types.size()) ? output_types[i] : dtype::invalid};
  }
  int num_outputs() const { return static_cast<int>(output_types.size()); }
  bool valid() const { return !node.empty(); }
};

class control_flow_context;  // graph/client/control_flow_context.hpp

// Chooses a node's device from the whole node (op, attrs, and in `device` the device the
// scope asked for), like TF's device functions: replica_device_setter sends variables to ps
// tasks and everything else to the worker.
using device_function = std::function<std::string(const node_def& node)>;

class scope {
 public:
  static scope new_root();

  // The next node gets exactly this name (within the current name scope), made unique.
  scope with_op_name(std::string_view name) const;
  // Nodes created through the returned scope are named "<prefix>/<name>/...".
  scope new_sub_scope(std::string_view name) const;
  scope with_device(std::string_view device) const;
  // Nodes created through the returned scope get the device `f` returns (after their attrs
  // and the scope's device are set). Replaces any device function of this scope.
  scope with_device_function(device_function f) const;
  scope with_control_dependencies(const std::vector<operation>& ops) const;
  scope with_control_dependencies(const std::vector<output>& outs) const;
  scope with_no_control_dependencies() const;
  // Nodes created through the returned scope are placed with `o`'s node (attr "_class").
  scope colocate_with(const output& o) const;
  // Nodes created through the returned scope belong to a cond branch or a while loop, which
  // routes their outside inputs in (ops::cond, ops::while_loop).
  scope with_control_flow_context(std::shared_ptr<control_flow_context> ctx) const;
  const std::shared_ptr<control_flow_context>& control_flow() const { return cf_ctx_; }

  bool ok() const;
  status get_status() const;
  // Records the first error; later node additions through any related scope are skipped.
  void update_status(const status& s) const;

  graph_def to_graph_def() const;
  // Number of nodes in the graph under construction; sessions use it to extend.
  size_t num_nodes() const;

  // --- used by node builders (ops::) ---
  // A fresh node name for an op whose default name is `default_name`.
  std::string unique_name(std::string_view default_name) const;
  const std::string& device() const { return device_; }
  // The name scope of nodes created through this scope: "outer/inner/", or empty.
  const std::string& name_prefix() const { return prefix_; }
  const device_function* device_fn() const { return device_fn_.get(); }
  const std::vector<std::string>& control_deps() const { return control_deps_; }
  const std::vector<std::string>& colocation() const { return colocation_; }
  // Adds a complete node; returns its output shapes' owner record. Errors go to the scope.
  void add_node(node_def n, const node_signature& sig, std::vector<partial_shape> shapes) const;
  // The inferred shape of an output (unknown when not inferable).
  partial_shape shape_of(const output& o) const;
  // The value of a Const node's output (a handle sharing its bytes), if `o` is one.
  std::optional<tensor> constant_value(const output& o) const;
  // A copy of the node named `name` (defaults filled in), if the graph has one.
  std::optional<node_def> find_node(std::string_view name) const;
  // Replaces data input `index` of node `name` (a while loop's back edge into its Merge, known
  // only once the body is built). REQUIRES: the new input has the same dtype and shape.
  void update_input(std::string_view name, int index, const std::string& input) const;

 private:
  struct shared_state;
  explicit scope(std::shared_ptr<shared_state> s) : shared_(std::move(s)) {}

  std::shared_ptr<shared_state> shared_;
  std::string prefix_;   // "outer/inner/" or empty
  std::string op_name_;  // requested name of the next node
  std::string device_;
  std::shared_ptr<const device_function> device_fn_;
  std::vector<std::string> control_deps_;
  std::vector<std::string> colocation_;
  std::shared_ptr<control_flow_context> cf_ctx_;
};

}  // namespace caflow
