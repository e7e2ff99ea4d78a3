#pragma once
// Reading typed attrs from a node, and resolving a node against its op's contract: defaults
// filled in, attrs checked, and the dtypes of every input and output worked out.
#include <string_view>

#include "graph/ir/graph_def.hpp"
#include "graph/ir/op_def.hpp"

namespace caflow {

// "node 'name' (Op)", the prefix of every error about a node.
std::string describe_node(const node_def& n);

// Errors name the node, the attr and the mismatch.
status get_attr(const node_def& n, std::string_view name, int64_t* out);
status get_attr(const node_def& n, std::string_view name, int* out);
status get_attr(const node_def& n, std::string_view name, float* out);
status get_attr(const node_def& n, std::string_view name, bool* out);
status get_attr(const node_def& n, std::string_view name, std::string* out);
status get_attr(const node_def& n, std::string_view name, dtype* out);
status get_attr(const node_def& n, std::string_view name, partial_shape* out);
status get_attr(const node_def& n, std::string_view name, tensor* out);
status get_attr(const node_def& n, std::string_view name, std::vector<int64_t>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<int>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<float>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<bool>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<std::string>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<dtype>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<partial_shape>* out);
status get_attr(const node_def& n, std::string_view name, std::vector<tensor>* out);

struct node_signature {
  std::vector<dtype> input_types;
  std::vector<bool> input_is_ref;
  std::vector<dtype> output_types;
  std::vector<bool> output_is_ref;
};

// Adds the op's default values for attrs the node leaves out.
void add_default_attrs(const op_def& op, node_def& n);
// Checks attrs (none unknown, none missing, right types, allowed types, minimums) and
// computes the node's input and output dtypes. REQUIRES: defaults already added.
status_or<node_signature> resolve_signature(const op_def& op, const node_def& n);

}  // namespace caflow
