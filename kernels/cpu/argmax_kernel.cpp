// ArgMax and ArgMin: a scan along one dim of an [outer, size, inner] view. Ties keep the first
// index, and the first NaN wins (as in numpy), so the answer never depends on thread count.
#include <algorithm>
#include <type_traits>

#include "kernels/common/argmax_checks.hpp"
#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// True when `v` should replace `best`. For floats a NaN beats every number and nothing
// beats a NaN: `!(v <= best)` is true for a NaN v, and `best == best` is false for a NaN best.
template <class T, bool Max>
inline bool beats(T v, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    return (Max ? !(v <= best) : !(v >= best)) && best == best;
  } else {
    return Max ? v > best : v < best;
  }
}

template <class T, class Index, bool Max>
class arg_reduction_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    const tensor& dim = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_arg_reduction_inputs(in.shape(), dim.shape()));
    const int64_t d = dim.type() == dtype::int32 ? int64_t{dim.scalar_value<int32_t>()}
                                                 : dim.scalar_value<int64_t>();
    auto plan = plan_arg_reduction(in.shape(), d, dtype_v<Index>);
    CAFLOW_OP_REQUIRES_OK(ctx, plan.get_status());
    tensor* out = ctx.allocate_output(0, plan->output_shape);
    if (out == nullptr || out->num_elements() == 0) return;

    const int64_t outer = plan->outer, size = plan->size, inner = plan->inner;
    const T* x = in.data<T>();
    Index* y = out->data<Index>();
    // Output elements [begin, end), each the scan of one column of the [size, inner] slab.
    auto scan = [=](int64_t begin, int64_t end) {
      if (inner == 1) {
        for (int64_t o = begin; o < end; ++o) y[o] = scan_row(x + o * size, size);
        return;
      }
      while (begin < end) {
        const int64_t o = begin / inner, i0 = begin % inner;
        const int64_t i1 = std::min(inner, i0 + (end - begin));
        for (int64_t c = i0; c < i1; c += block) {
          const int64_t w = std::min<int64_t>(block, i1 - c);
          scan_columns(x + o * size * inner + c, size, inner, w, y + o * inner + c);
        }
        begin += i1 - i0;
      }
    };
    const int64_t total = outer * inner;
    if (total * size < parallel_eval_threshold || ctx.dev().eigen_cpu() == nullptr) {
      scan(0, total);
    } else {
      const Eigen::TensorOpCost cost(static_cast<double>(size * sizeof(T)), sizeof(Index),
                                     static_cast<double>(size));
      ctx.eigen_cpu().parallelFor(total, cost, scan);
    }
  }

 private:
  static constexpr int64_t block = 256;

  static Index scan_row(const T* row, int64_t size) {
    Index best_index = 0;
    T best = row[0];
    for (int64_t j = 1; j < size; ++j) {
      if (beats<T, Max>(row[j], best)) {
        best = row[j];
        best_index = static_cast<Index>(j);
      }
    }
    return best_index;
  }

  // `w` <= block adjacent columns, each `size` long with stride `inner`, kept in a local
  // buffer so the scan walks rows of contiguous memory.
  static void scan_columns(const T* x, int64_t size, int64_t inner, int64_t w, Index* y) {
    T best[block];
    std::copy(x, x + w, best);
    std::fill(y, y + w, Index{0});
    for (int64_t j = 1; j < size; ++j) {
      const T* row = x + j * inner;
      for (int64_t k = 0; k < w; ++k) {
        if (beats<T, Max>(row[k], best[k])) {
          best[k] = row[k];
          y[k] = static_cast<Index>(j);
        }
      }
    }
  }
};

template <class T, class Index>
using arg_max_op = arg_reduction_op<T, Index, true>;
template <class T, class Index>
using arg_min_op = arg_reduction_op<T, Index, false>;
using reducible = type_list<float, double, int32_t, int64_t>;
using index_types = type_list<int32_t, int64_t>;

const typed_kernel_registrar2<arg_max_op, reducible, index_types> arg_max_kernels(
    "ArgMax", device_cpu, "T", "output_type");
const typed_kernel_registrar2<arg_min_op, reducible, index_types> arg_min_kernels(
    "ArgMin", device_cpu, "T", "output_type");

}  // namespace
}  // namespace caflow
