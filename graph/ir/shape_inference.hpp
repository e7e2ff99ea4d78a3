#pragma once
// Shape inference: each op's shape function sees its inputs' partial shapes (and the values
// of constant inputs) and states its outputs' shapes. A definite clash is an error naming the
// node; anything unknown stays unknown and the kernel checks at run time.
#include <vector>

#include "graph/ir/node_signature.hpp"

namespace caflow {

class shape_context {
 public:
  shape_context(const node_def& node, const node_signature& sig,
                std::vector<partial_shape> inputs, std::vector<const tensor*> input_values);

  const node_def& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const partial_shape& input(int i) const { return inputs_[i]; }
  dtype input_type(int i) const { return sig_.input_types[i]; }
  dtype output_type(int i) const { return sig_.output_types[i]; }
  // The value of input i when it is known before running (a Const), else nullptr.
  const tensor* input_value(int i) const { return values_[i]; }
  void set_output(int i, partial_shape s) { outputs_[i] = std::move(s); }
  const std::vector<partial_shape>& outputs() const { return outputs_; }

  template <class T>
  status get_attr(std::string_view name, T* out) const {
    return caflow::get_attr(node_, name, out);
  }
  // An invalid_argument error prefixed with the node's description.
  template <class... Ts>
  status error(Ts&&... parts) const {
    return errors::invalid_argument(describe_node(node_), ": ", std::forward<Ts>(parts)...);
  }
  // Checks that input i has the given rank when its rank is known.
  status require_rank(int i, int rank) const;
  status require_rank_at_least(int i, int rank) const;

 private:
  const node_def& node_;
  const node_signature& sig_;
  std::vector<partial_shape> inputs_;
  std::vector<const tensor*> values_;
  std::vector<partial_shape> outputs_;
};

// Ready-made shape functions.
namespace shape_fns {
status unknown(shape_context& c);          // every output unknown
status unchanged(shape_context& c);        // output 0 has input 0's shape
status scalar(shape_context& c);           // every output is a scalar
status broadcast_binary(shape_context& c); // numpy broadcasting of inputs 0 and 1
status merge_all_inputs(shape_context& c); // all inputs (e.g. AddN) have one shape
}  // namespace shape_fns

// Numpy broadcasting of two partial shapes; an error describes incompatible dims.
status_or<partial_shape> broadcast_shapes(const partial_shape& a, const partial_shape& b);

}  // namespace caflow
