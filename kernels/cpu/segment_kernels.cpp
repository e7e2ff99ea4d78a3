// UnsortedSegmentSum: rows of data summed into the output row their segment id names. The
// ids are all checked before anything is summed; negative ids drop their row (TensorFlow's
// rule), ids >= num_segments are errors.
#include <algorithm>

#include "graph/util/array_index_util.hpp"
#include "kernels/common/sparse_update_checks.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for_column_blocks;

template <class T, class Index>
class unsorted_segment_sum_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& data = ctx.input(0);
    const tensor& ids = ctx.input(1);
    const tensor& num_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, num_t.rank() == 0,
                       errors::invalid_argument("num_segments must be a scalar, got shape ",
                                                num_t.shape().to_string()));
    const int64_t num = index_values(num_t)[0];
    auto shape = sparse_checks::unsorted_segment_shape(data, ids, num);
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::unsorted_segment_ids<Index>(ids, num));
    const tensor_shape& out_shape = *shape;
    const int64_t rows = ids.num_elements();
    const Index* id = ids.data<Index>();
    const int64_t inner = out_shape.num_elements() / std::max<int64_t>(num, 1);
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out_shape.num_elements() == 0) return;
    const T* in = data.data<T>();
    T* o = out->data<T>();
    std::fill(o, o + out_shape.num_elements(), T(0));
    parallel_for_column_blocks(ctx, rows, inner, sizeof(T), [&](int64_t j0, int64_t j1) {
      for (int64_t k = 0; k < rows; ++k) {
        if (id[k] < 0) continue;
        const T* src = in + k * inner;
        T* dst = o + id[k] * inner;
        for (int64_t j = j0; j < j1; ++j) dst[j] += src[j];
      }
    });
  }
};

using segment_value_types = type_list<float, double, int32_t, int64_t>;
using segment_index_types = type_list<int32_t, int64_t>;
const typed_kernel_registrar2<unsorted_segment_sum_op, segment_value_types, segment_index_types>
    unsorted_segment_sum_kernels("UnsortedSegmentSum", device_cpu, "T", "Tindices");

}  // namespace
}  // namespace caflow
