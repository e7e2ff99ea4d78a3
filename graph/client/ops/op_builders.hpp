#pragma once
// Builders shared by the ops:: files of element-wise ops: one node of `op` on its inputs. Not an
// API.
#include "graph/client/node_builder.hpp"

namespace caflow::ops_detail {

inline output unary(const scope& s, const char* op, const output& x) {
  return node_builder(s, op).input(x).finalize().out();
}

inline output binary(const scope& s, const char* op, const output& x, const output& y) {
  return node_builder(s, op).input(x).input(y).finalize().out();
}

}  // namespace caflow::ops_detail
