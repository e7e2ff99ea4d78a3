#pragma once
// Adds one node to a scope's graph, the way every ops:: function does:
//
//   operation op = node_builder(s, "MatMul").input(a).input(b)
//                      .attr("transpose_a", true).finalize();
//
// Each input()/input_list() call fills the op's next declared input arg. Type attrs (T) and
// list lengths (N) are inferred from the inputs; defaults are filled in; attrs, input dtypes
// and shapes are checked at once, and the first error is kept in the scope (naming the node).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow {

class node_builder {
 public:
  node_builder(const scope& s, std::string op, std::string default_name = {});
  node_builder& input(const output& o);
  node_builder& input_list(const std::vector<output>& os);
  node_builder& control_input(const operation& op);
  node_builder& attr(std::string name, attr_value v);
  // The new node, or an invalid operation when the scope holds an error.
  operation finalize();

 private:
  status build(node_def& n, node_signature& sig, std::vector<partial_shape>& shapes);

  scope scope_;
  std::string op_, default_name_;
  std::vector<std::vector<output>> args_;  // one entry per input arg
  std::vector<bool> arg_is_list_;
  std::vector<std::string> control_inputs_;
  std::map<std::string, attr_value> attrs_;
};

}  // namespace caflow
