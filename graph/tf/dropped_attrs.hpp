#pragma once
// The attrs a TensorFlow graph may carry that caflow's op_defs do not declare, and that the
// reader drops because dropping them loses nothing. Any other undeclared attr is an error.
//
//  - Attrs newer TensorFlow versions added to existing ops, while they hold the default that
//    means the old behaviour caflow implements: explicit_paddings = [] (pooling ops), grad_a /
//    grad_b = false (MatMul), grad_x / grad_y = false (BatchMatMul*), Truncate = false (Cast),
//    exponential_avg_factor = 1 (FusedBatchNorm*), use_cudnn_on_gpu = true, dilations of ones,
//    data_format "NHWC" / "NDHWC" (the layouts caflow's ops assume when they lack the attr).
//  - Type attrs of index and shape inputs (Tidx, Tshape, Index, index_type, Tpaddings, ...)
//    and T itself, on ops whose caflow op_def fixes or infers that type: caflow checks every
//    edge's dtype against the op when it builds the graph, so nothing goes unchecked.
//  - TensorFlow's internal '_' annotations that steer its own compilers and inspectors and mean
//    nothing to caflow: _output_shapes, _XlaCompile, _XlaScope, _XlaSeparateCompiledGradients,
//    _XlaMustCompile, _kernel, _noinline, _input_shapes, _user_specified_name,
//    _has_manual_control_dependencies, _acd_function_control_output,
//    _read_only_resource_inputs, _disable_call_shape_inference, _tpu_replicate, _grappler_*.
// Other '_' attrs are kept: `_class` ("loc:@node") is how caflow's placer colocates, as in
// TensorFlow, and caflow ignores the rest when it validates a node.
#include <optional>
#include <vector>
#include <string>
#include <string_view>

#include "graph/ir/attr_value.hpp"

namespace caflow::tf {

enum class drop_verdict {
  keep,          // convert it: the op declares it, or it is a '_' annotation caflow keeps
  drop,          // drop it silently
  drop_if_default,  // drop it when it equals one of `defaults` (else an error)
  drop_if_type,  // drop it when it holds a type (else an error)
  unknown,       // neither declared nor droppable: an error
};

struct drop_rule {
  drop_verdict verdict = drop_verdict::keep;
  // For drop_if_default: the values that mean the behaviour caflow implements.
  std::vector<attr_value> defaults;
};

// What to do with attr `attr` on a node of `op`, which caflow's op_def does not declare.
drop_rule rule_for_undeclared(std::string_view op, std::string_view attr);

}  // namespace caflow::tf
