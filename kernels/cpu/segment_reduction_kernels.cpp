// SegmentSum, SegmentMean, SegmentMax and SegmentMin on CPU. segment_ids is checked whole
// (a vector as long as data's first dimension, non-negative, ascending) before anything is
// reduced, so a bad id fails the step naming its position and nothing is half-written.
// Segments no id names are 0, as TF's sorted segment kernels leave them.
#include <algorithm>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for_column_blocks;

template <class T>
struct sum_reducer {
  static void first(T& acc, T v) { acc = v; }
  static void next(T& acc, T v) { acc += v; }
};
template <class T>
struct max_reducer {
  static void first(T& acc, T v) { acc = v; }
  static void next(T& acc, T v) { acc = std::max(acc, v); }
};
template <class T>
struct min_reducer {
  static void first(T& acc, T v) { acc = v; }
  static void next(T& acc, T v) { acc = std::min(acc, v); }
};

template <class T, class Index, class Reducer, bool Mean>
class segment_reduction_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& data = ctx.input(0);
    const tensor& ids = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, ids.rank() == 1,
                       errors::invalid_argument("segment_ids must be a vector, got shape ",
                                                ids.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, data.rank() >= 1 && data.dim(0) == ids.dim(0),
                       errors::invalid_argument("segment_ids of shape ", ids.shape().to_string(),
                                                " must be as long as the first dimension of "
                                                "data ",
                                                data.shape().to_string()));
    const int64_t rows = ids.num_elements();
    const Index* id = ids.data<Index>();
    for (int64_t k = 0; k < rows; ++k) {
      CAFLOW_OP_REQUIRES(ctx, id[k] >= 0,
                         errors::invalid_argument("segment_ids[", k, "] = ", id[k],
                                                  " is negative"));
      CAFLOW_OP_REQUIRES(ctx, k == 0 || id[k] >= id[k - 1],
                         errors::invalid_argument("segment_ids are not sorted: segment_ids[", k,
                                                  "] = ", id[k], " follows segment_ids[", k - 1,
                                                  "] = ", id[k - 1]));
    }
    tensor_shape out_shape = data.shape();
    out_shape.set_dim(0, rows == 0 ? 0 : int64_t{id[rows - 1]} + 1);
    const int64_t inner = rows == 0 ? 0 : data.num_elements() / rows;
    tensor* out = ctx.allocate_output(0, out_shape);
    if (out == nullptr || out_shape.num_elements() == 0) return;
    const T* in = data.data<T>();
    T* o = out->data<T>();
    std::fill(o, o + out_shape.num_elements(), T(0));
    parallel_for_column_blocks(ctx, rows, inner, sizeof(T), [&](int64_t j0, int64_t j1) {
      // Runs of equal ids are one segment each: the first row starts it, the rest fold in.
      for (int64_t k = 0; k < rows;) {
        int64_t stop = k + 1;
        while (stop < rows && id[stop] == id[k]) ++stop;
        T* dst = o + int64_t{id[k]} * inner;
        for (int64_t j = j0; j < j1; ++j) Reducer::first(dst[j], in[k * inner + j]);
        for (int64_t r = k + 1; r < stop; ++r)
          for (int64_t j = j0; j < j1; ++j) Reducer::next(dst[j], in[r * inner + j]);
        if constexpr (Mean)
          for (int64_t j = j0; j < j1; ++j) dst[j] /= static_cast<T>(stop - k);
        k = stop;
      }
    });
  }
};

template <class T, class Index>
using segment_sum_op = segment_reduction_op<T, Index, sum_reducer<T>, false>;
template <class T, class Index>
using segment_mean_op = segment_reduction_op<T, Index, sum_reducer<T>, true>;
template <class T, class Index>
using segment_max_op = segment_reduction_op<T, Index, max_reducer<T>, false>;
template <class T, class Index>
using segment_min_op = segment_reduction_op<T, Index, min_reducer<T>, false>;

using value_types = type_list<float, double, int32_t, int64_t, uint8_t>;
using index_types = type_list<int32_t, int64_t>;
const typed_kernel_registrar2<segment_sum_op, value_types, index_types> segment_sum_kernels(
    "SegmentSum", device_cpu, "T", "Tindices");
const typed_kernel_registrar2<segment_mean_op, type_list<float, double>, index_types>
    segment_mean_kernels("SegmentMean", device_cpu, "T", "Tindices");
const typed_kernel_registrar2<segment_max_op, value_types, index_types> segment_max_kernels(
    "SegmentMax", device_cpu, "T", "Tindices");
const typed_kernel_registrar2<segment_min_op, value_types, index_types> segment_min_kernels(
    "SegmentMin", device_cpu, "T", "Tindices");

}  // namespace
}  // namespace caflow
