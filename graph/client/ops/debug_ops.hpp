#pragma once
// Checking and printing values inside a running graph, with TensorFlow's names and semantics:
// Assert fails the step when its condition is false, naming the node and showing the data;
// Print writes a message and the data to stderr and passes its input through; CheckNumerics
// and EnsureShape pass their input through once it has no NaN/Inf, or has the shape;
// PreventGradient passes it through but refuses to be differentiated. IdentityN and Snapshot
// pass tensors through (Snapshot as a copy).
//
//   auto ok = ops::assert_that(root, ops::less(root, loss, limit), {loss});
//   auto y = ops::print(root, x, {x, step}, {.message = "x, step: "});
//   // Give `ok` to whatever must only run after the check, as a control input.
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct assert_attrs {
  int64_t summarize = 3;  // elements of each data tensor shown in the message
};
// Assert: a stateful op with no outputs; when `condition` (a bool scalar) is false the step
// fails with INVALID_ARGUMENT "assertion failed: [d0 values] [d1 values] ...".
operation assert_that(const scope& s, const output& condition, const std::vector<output>& data,
                      const assert_attrs& attrs = {});

struct print_attrs {
  std::string message;
  int64_t first_n = -1;   // print only the first first_n times the node runs (-1: always)
  int64_t summarize = 3;  // elements of each data tensor printed
};
// Print: returns `input` unchanged; each run (up to first_n) writes message followed by
// "[values]" for each of `data` to stderr.
output print(const scope& s, const output& input, const std::vector<output>& data,
             const print_attrs& attrs = {});

// CheckNumerics: `tensor` (float32 or float64) unchanged; a NaN or infinity fails the step
// with "<message> : Tensor had NaN values" (or Inf).
output check_numerics(const scope& s, const output& tensor, const std::string& message);

// EnsureShape: `input` unchanged when its shape is compatible with `shape` (-1 dims match
// anything); otherwise the step fails naming both shapes.
output ensure_shape(const scope& s, const output& input, const partial_shape& shape);

// PreventGradient: `input` unchanged; asking for a gradient through it is an error carrying
// `message`.
output prevent_gradient(const scope& s, const output& input, const std::string& message = "");

// IdentityN: each of `inputs` unchanged, as one node.
std::vector<output> identity_n(const scope& s, const std::vector<output>& inputs);

// Snapshot: a copy of `input` with its own buffer.
output snapshot(const scope& s, const output& input);

// DebugStall, for fault tests: when `stall` (a bool scalar) is true the kernel sleeps `seconds`
// and ignores cancellation meanwhile, as a hung kernel would; returns `stall`.
output debug_stall(const scope& s, const output& stall, float seconds);

}  // namespace caflow::ops
