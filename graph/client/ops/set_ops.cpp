// ListDiff, UniqueWithCounts and Bincount: client functions (registered in
// graph/ops/set_ops.cpp).
#include "graph/client/ops/set_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

std::vector<output> list_diff(const scope& s, const output& x, const output& y, dtype out_idx) {
  const operation op =
      node_builder(s, "ListDiff").input(x).input(y).attr("out_idx", out_idx).finalize();
  return {op.out(0), op.out(1)};
}

std::vector<output> unique_with_counts(const scope& s, const output& x, dtype out_idx) {
  const operation op =
      node_builder(s, "UniqueWithCounts").input(x).attr("out_idx", out_idx).finalize();
  return {op.out(0), op.out(1), op.out(2)};
}

output bincount(const scope& s, const output& arr, const output& size, const output& weights) {
  return node_builder(s, "Bincount").input(arr).input(size).input(weights).finalize().out();
}

}  // namespace ops
}  // namespace caflow
