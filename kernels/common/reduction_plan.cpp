#include "kernels/common/reduction_plan.hpp"

#include "graph/util/reduction_axes.hpp"

namespace caflow {

status_or<reduction_plan> plan_reduction(const tensor_shape& input, const tensor& axes,
                                         bool keep_dims) {
  CAFLOW_ASSIGN_OR_RETURN(const std::bitset<max_rank> reduced, reduction_axes(axes, input.rank()));
  reduction_plan plan;
  // Runs of adjacent kept or adjacent reduced dims; size-1 dims change nothing and are dropped.
  std::array<int64_t, max_rank> run_size{};
  std::array<bool, max_rank> run_reduced{};
  int runs = 0;
  for (int i = 0; i < input.rank(); ++i) {
    const int64_t d = input.dim(i);
    if (reduced[i]) {
      plan.reduced_elements *= d;
      if (keep_dims) plan.output_shape.add_dim(1);
    } else {
      plan.output_shape.add_dim(d);
    }
    if (d == 1) continue;
    if (runs > 0 && run_reduced[runs - 1] == reduced[i]) {
      run_size[runs - 1] *= d;
    } else {
      run_size[runs] = d;
      run_reduced[runs] = reduced[i];
      ++runs;
    }
  }
  // Reduce the last reduced run first: when it is innermost that is the fastest pass, and it
  // shrinks the data before any strided pass.
  for (;;) {
    int g = runs - 1;
    while (g >= 0 && !run_reduced[g]) --g;
    if (g < 0) break;
    reduction_pass& p = plan.passes[plan.num_passes++];
    for (int i = 0; i < g; ++i) p.outer *= run_size[i];
    p.size = run_size[g];
    for (int i = g + 1; i < runs; ++i) p.inner *= run_size[i];
    // The kept runs either side of g now lie next to each other; only their product matters.
    for (int i = g; i + 1 < runs; ++i) {
      run_size[i] = run_size[i + 1];
      run_reduced[i] = run_reduced[i + 1];
    }
    --runs;
  }
  return plan;
}

}  // namespace caflow
