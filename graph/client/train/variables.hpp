#pragma once
// Variables as a TensorFlow 1.x user knows them: a VariableV2 node holding state on its device,
// an Assign that gives it its initial value, and one initializer op for all of them.
//
//   auto root = scope::new_root();
//   train::variable w = train::create_variable(root, "w", ops::constant(root, 0.0f));
//   train::variable_set vars{w};
//   auto init = train::global_variables_initializer(root, vars);
//   session sess(root);
//   sess.run_targets({init});
//
// TensorFlow keeps every variable in graph-wide collections. caflow keeps no hidden registry:
// whoever creates variables returns them (layers, optimizers' slots, the global step), and the
// caller collects them, in a variable_set when convenient.
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::train {

struct variable {
  output ref;             // the VariableV2's Ref(T) output; consumers read the current value
  output initial_value;   // what `initializer` assigns
  operation initializer;  // the Assign
  bool trainable = true;  // optimized by default; false for slots, counters, statistics

  bool valid() const { return ref.valid(); }
  const std::string& name() const { return ref.node; }
  dtype type() const { return ref.type; }
  // A variable reads as its value wherever an output is expected: ops::mat_mul(s, x, w).
  operator const output&() const { return ref; }  // NOLINT
};

struct variable_attrs {
  bool trainable = true;
  // When false, the variable takes whatever shape its initial value has at run time (and its
  // declared shape is unknown); when true the initial value's shape must be known.
  bool validate_shape = true;
  std::string container = {};
  std::string shared_name = {};
  // Set by create_partitioned_variable on each shard: {full name, shape_and_slice}, the node
  // attr "_save_slice_info" the saver and the console read (TF's Variable.SaveSliceInfo).
  std::vector<std::string> save_slice_info = {};
};

// A variable named `name` (in `s`'s name scope, made unique) of `initial_value`'s dtype and
// shape, with its Assign named "<name>/Assign". Nodes are added through `s`, so its device,
// colocation and control dependencies apply. Errors (an invalid or non-shaped initial value)
// are kept in the scope, as ops:: functions do, and the returned variable is invalid.
variable create_variable(const scope& s, std::string_view name, const output& initial_value,
                         const variable_attrs& attrs = {});

// Builds a variable's initial value of `shape` and `type` in `s` (see initializers.hpp).
using initializer = std::function<output(const scope& s, const tensor_shape& shape, dtype type)>;

// Like tf.get_variable: a variable of `shape` and `type` whose initial value `init` builds
// under "<name>/Initializer/". Errors are kept in the scope.
variable create_variable(const scope& s, std::string_view name, const tensor_shape& shape,
                         dtype type, const initializer& init, const variable_attrs& attrs = {});

// The variables of a model, collected explicitly. Order is creation order; adding a variable
// twice keeps one entry.
class variable_set {
 public:
  variable_set() = default;
  variable_set(std::initializer_list<variable> vars);  // NOLINT: {w, b} reads as a set
  variable_set(const std::vector<variable>& vars);      // NOLINT: so does what a layer returns

  void add(const variable& v);
  void add(const std::vector<variable>& vs);
  // Every variable (TensorFlow's GLOBAL_VARIABLES).
  const std::vector<variable>& global() const { return vars_; }
  // The trainable ones (TRAINABLE_VARIABLES): what an optimizer minimizes over by default.
  std::vector<variable> trainable() const;
  size_t size() const { return vars_.size(); }
  bool empty() const { return vars_.empty(); }

 private:
  std::vector<variable> vars_;
};

// A NoOp (named "init" unless `s` names it) that runs every variable's initializer.
operation global_variables_initializer(const scope& s, const variable_set& vars);

namespace detail {
// The name a node got within its scope's name prefix when `requested` was asked for:
// `requested` itself, or with the "_<n>" suffix that made it unique. `full` is the node's full
// name. Lets helper nodes be named after the node they serve ("w_1/Assign").
std::string local_name(std::string_view full, std::string_view requested);
}  // namespace detail

}  // namespace caflow::train
