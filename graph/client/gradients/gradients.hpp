#pragma once
// Symbolic differentiation of graphs under construction, like TensorFlow's C++
// AddSymbolicGradients:
//
//   auto loss = ops::reduce_mean(root, ops::square(root, ops::sub(root, y, labels)), {0, 1});
//   std::vector<output> grads;
//   status st = add_symbolic_gradients(root, {loss}, {w, b}, &grads);  // d loss / d w, d b
//
// Each differentiable op registers one gradient function with CAFLOW_REGISTER_GRADIENT, in a
// file of graph/client/gradients/ named after its op group (math_grad.cpp, nn_grad.cpp, ...). The
// function receives the forward node and the gradients flowing into each of its outputs, and
// adds nodes (through the given scope) computing the gradient of each of its data inputs.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/client/gradients/indexed_slices.hpp"
#include "graph/client/scope.hpp"
#include "graph/ir/node_signature.hpp"

namespace caflow {

// What a gradient function sees of the forward node.
struct grad_op_info {
  node_def def;                 // the node as built (attrs include defaults)
  std::vector<output> inputs;   // its data inputs, in order, typed
  std::vector<output> outputs;  // its outputs, in order, typed
  // Where a sparse gradient function reports making a gradient dense.
  dense_fallback_log log_dense_fallback = log_to_clog;

  template <class T>
  status get_attr(std::string_view name, T* out) const {
    return caflow::get_attr(def, name, out);
  }
};

// `grad_outputs` has one valid entry per output of the op: outputs no gradient reaches are
// given as zeros (ZerosLike). The function fills `grad_inputs` with one entry per data input;
// an invalid (default-constructed) output means no gradient flows to that input (integer
// indices, shapes, ...). Errors are returned, naming what is wrong.
using gradient_fn = std::function<status(const scope& s, const grad_op_info& op,
                                         const std::vector<output>& grad_outputs,
                                         std::vector<output>* grad_inputs)>;

// For ops whose gradient may be sparse (GatherV2: IndexedSlices naming the gathered rows) or
// that pass sparse gradients through (Identity): the function sees the gradients of its outputs
// as they are, dense or sparse, and may return either kind. Ops registered only with a
// gradient_fn get their output gradients made dense first (logged, see gradient_options).
using sparse_gradient_fn = std::function<status(
    const scope& s, const grad_op_info& op, const std::vector<gradient_value>& grad_outputs,
    std::vector<gradient_value>* grad_inputs)>;

class gradient_registry {
 public:
  // Filled during static initialization, read-only afterwards.
  static gradient_registry& global();
  void add(std::string op, gradient_fn fn);
  void add_sparse(std::string op, sparse_gradient_fn fn);
  // Ops through which no gradient flows (shape queries, comparisons, random numbers...):
  // their inputs get no gradient, silently.
  void add_no_gradient(std::string op);
  // nullptr when the op has no gradient function (or is registered as having none).
  const gradient_fn* lookup(std::string_view op) const;
  bool is_no_gradient(std::string_view op) const;
  // nullptr when the op has no sparse-aware gradient function.
  const sparse_gradient_fn* lookup_sparse(std::string_view op) const;

 private:
  std::map<std::string, gradient_fn, std::less<>> fns_;
  std::map<std::string, sparse_gradient_fn, std::less<>> sparse_fns_;
  std::map<std::string, bool, std::less<>> no_gradient_;
};

namespace detail {
struct gradient_registrar {
  gradient_registrar(const char* op, gradient_fn fn) {
    gradient_registry::global().add(op, std::move(fn));
  }
  explicit gradient_registrar(const char* op) { gradient_registry::global().add_no_gradient(op); }
};
struct sparse_gradient_registrar {
  sparse_gradient_registrar(const char* op, sparse_gradient_fn fn) {
    gradient_registry::global().add_sparse(op, std::move(fn));
  }
};
}  // namespace detail

#define CAFLOW_GRAD_CONCAT_INNER(a, b) a##b
#define CAFLOW_GRAD_CONCAT(a, b) CAFLOW_GRAD_CONCAT_INNER(a, b)
#define CAFLOW_REGISTER_GRADIENT(op, fn)                                               \
  static ::caflow::detail::gradient_registrar CAFLOW_GRAD_CONCAT(caflow_grad_, __COUNTER__)( \
      op, fn)
#define CAFLOW_REGISTER_SPARSE_GRADIENT(op, fn)                                       \
  static ::caflow::detail::sparse_gradient_registrar CAFLOW_GRAD_CONCAT(caflow_sgrad_,      \
                                                                        __COUNTER__)(op, fn)
#define CAFLOW_REGISTER_NO_GRADIENT(op)                                                \
  static ::caflow::detail::gradient_registrar CAFLOW_GRAD_CONCAT(caflow_nograd_, __COUNTER__)( \
      op)

// Adds to `s` the nodes computing the gradients of sum(outputs[i] * grad_outputs[i]) with
// respect to each of `inputs` and stores them in `grad_inputs` (one per input, in order).
// `grad_outputs` empty means ones shaped like each output (d outputs / d inputs). Gradients
// reaching one tensor along several paths are summed with AddN. An input that the outputs do
// not depend on gets zeros shaped like it, or none (see gradient_options). Fails, naming the node and op, when a path from an
// input to an output runs through an op without a gradient function.
//
// Only float32 and float64 tensors carry gradients: paths through integer tensors (shapes,
// indices, casts to int) contribute nothing, and integer `outputs` or `inputs` are refused.
// Gradients are total derivatives, as TF's tf.gradients: when one requested input is computed
// from another (u = 3x, y = u^2 + x), the gradient of x counts the path through u (18x + 1).
// Tensors in `gradient_options::stop_gradients` are held fixed: no gradient flows back through
// them (TF's stop_gradients; listing the inputs gives each the partial derivative, 1 here). An
// input that is a variable's Ref output is differentiated as the value its consumers read.
//
// The nodes are added under the name scope "gradients" (made unique), one sub-scope per
// forward node ("gradients/layer/MatMul_grad/..."). Errors found here (bad arguments, an op
// without a gradient) are returned without being recorded in `s`, so the scope stays usable;
// an op that fails to build inside a gradient function records its error in `s`, as every op
// does. Nodes added before an error remain, unused.
//
// Sparse gradients: the gradient of a gather from a variable (GatherV2 along axis 0, as
// nn::embedding_lookup builds) is IndexedSlices naming the gathered rows, and stays sparse
// through Identity and through aggregation (slices are concatenated, as TF's). The overload
// taking gradient_values returns them as they are (the optimizers apply them with sparse
// kernels); the one taking outputs makes them dense. An op on the way whose gradient function
// takes only dense gradients gets them dense, and that fallback is logged.
//
// Further options, as tf.gradients' arguments:
// - colocate_gradients_with_ops: every gradient node runs where its forward node does (on a
//   cluster, a layer's backward pass stays on the layer's device instead of the default one).
// - aggregation: how the gradients reaching one tensor along several paths are summed: one AddN
//   (TF's ADD_N, the default) or a tree of pairwise Adds (EXPERIMENTAL_TREE: each sum can start
//   as soon as its two inputs exist). Sparse ones are concatenated either way.
// - unconnected: what an input the outputs do not depend on gets: no gradient (TF's NONE, the
//   default) or zeros shaped like it (ZERO). The overloads without options give zeros, as TF's
//   C++ AddSymbolicGradients does.
enum class aggregation_method { add_n, experimental_tree };
enum class unconnected_gradients { none, zero };
struct gradient_options {
  std::vector<output> stop_gradients{};
  dense_fallback_log log_dense_fallback = log_to_clog;
  bool colocate_gradients_with_ops = false;
  aggregation_method aggregation = aggregation_method::add_n;
  unconnected_gradients unconnected = unconnected_gradients::none;
};
status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                              const std::vector<output>& inputs,
                              const std::vector<output>& grad_outputs,
                              const gradient_options& options,
                              std::vector<gradient_value>* grad_inputs);
status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                              const std::vector<output>& inputs,
                              const std::vector<output>& grad_outputs,
                              const gradient_options& options, std::vector<output>* grad_inputs);
inline status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                                     const std::vector<output>& inputs,
                                     const std::vector<output>& grad_outputs,
                                     std::vector<output>* grad_inputs) {
  return add_symbolic_gradients(s, outputs, inputs, grad_outputs,
                                {.unconnected = unconnected_gradients::zero}, grad_inputs);
}
inline status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                                     const std::vector<output>& inputs,
                                     std::vector<output>* grad_inputs) {
  return add_symbolic_gradients(s, outputs, inputs, {}, grad_inputs);
}

// While loops (ops::while_loop) are differentiated as a whole: their gradient is a second loop
// that runs the body's gradient once per forward iteration, last iteration first, on the
// forward values the forward loop keeps in a loop history (graph/client/gradients/
// while_loop_grad.cpp). A loop nested in another loop's body is not differentiated yet (a
// clear "unimplemented" error).
namespace detail {
// add_symbolic_gradients over the nodes of one while-loop frame (`frame`, "" for the root):
// loops directly inside it count as single nodes, everything else is left out.
status add_symbolic_gradients_in_frame(const scope& s, const std::vector<output>& outputs,
                                       const std::vector<output>& inputs,
                                       const std::vector<output>& grad_outputs,
                                       const std::string& frame, std::vector<output>* grad_inputs);
}  // namespace detail

}  // namespace caflow
