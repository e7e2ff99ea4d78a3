// ListDiff, UniqueWithCounts and Bincount over vectors, with hash maps of the values. Byte-typed
// where only equality matters (ListDiff, UniqueWithCounts compare element bits, as TF's hash of
// the value does for the integer types; for floats -0.0 and 0.0 differ, NaNs of one pattern match).
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::with_word;

status require_vector(const tensor& t, const char* what) {
  if (t.rank() != 1)
    return errors::invalid_argument(what, " must be a vector, got shape ", t.shape().to_string());
  return {};
}

template <class I>
class list_diff_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor &x = ctx.input(0), &y = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, require_vector(x, "x"));
    CAFLOW_OP_REQUIRES_OK(ctx, require_vector(y, "y"));
    with_word(dtype_size(x.type()), [&]<class W>() {
      const W* xv = static_cast<const W*>(x.raw_data());
      const W* yv = static_cast<const W*>(y.raw_data());
      const std::unordered_set<W> drop(yv, yv + y.num_elements());
      std::vector<int64_t> keep;
      for (int64_t i = 0; i < x.num_elements(); ++i)
        if (!drop.count(xv[i])) keep.push_back(i);
      const int64_t n = static_cast<int64_t>(keep.size());
      tensor* out = ctx.allocate_output(0, tensor_shape{n});
      tensor* idx = ctx.allocate_output(1, tensor_shape{n});
      if (!out || !idx) return;
      for (int64_t j = 0; j < n; ++j) {
        static_cast<W*>(out->raw_data())[j] = xv[keep[j]];
        idx->data<I>()[j] = static_cast<I>(keep[j]);
      }
    });
  }
};

template <class I>
class unique_with_counts_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, require_vector(x, "x"));
    with_word(dtype_size(x.type()), [&]<class W>() {
      const W* xv = static_cast<const W*>(x.raw_data());
      std::unordered_map<W, int64_t> first;
      std::vector<W> values;
      std::vector<int64_t> counts;
      tensor* idx = ctx.allocate_output(1, x.shape());
      if (!idx) return;
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        auto [it, fresh] = first.emplace(xv[i], static_cast<int64_t>(values.size()));
        if (fresh) {
          values.push_back(xv[i]);
          counts.push_back(0);
        }
        ++counts[static_cast<size_t>(it->second)];
        idx->data<I>()[i] = static_cast<I>(it->second);
      }
      const int64_t n = static_cast<int64_t>(values.size());
      tensor* y = ctx.allocate_output(0, tensor_shape{n});
      tensor* count = ctx.allocate_output(2, tensor_shape{n});
      if (!y || !count) return;
      for (int64_t j = 0; j < n; ++j) {
        static_cast<W*>(y->raw_data())[j] = values[j];
        count->data<I>()[j] = static_cast<I>(counts[j]);
      }
    });
  }
};

template <class T>
class bincount_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor &arr = ctx.input(0), &size_t_ = ctx.input(1), &weights = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, size_t_.rank() == 0,
                       errors::invalid_argument("size must be a scalar, got shape ",
                                                size_t_.shape().to_string()));
    const int32_t size = size_t_.scalar_value<int32_t>();
    CAFLOW_OP_REQUIRES(ctx, size >= 0,
                       errors::invalid_argument("size must be non-negative, got ", size));
    const bool weighted = weights.num_elements() > 0;
    CAFLOW_OP_REQUIRES(ctx, !weighted || weights.shape() == arr.shape(),
                       errors::invalid_argument("weights has shape ", weights.shape().to_string(),
                                                " but arr has shape ", arr.shape().to_string(),
                                                "; give no weights or one per value"));
    tensor* bins = ctx.allocate_output(0, tensor_shape{size});
    if (!bins) return;
    T* b = bins->data<T>();
    std::fill_n(b, size, T{0});
    const int32_t* v = arr.data<int32_t>();
    for (int64_t i = 0; i < arr.num_elements(); ++i) {
      CAFLOW_OP_REQUIRES(ctx, v[i] >= 0,
                         errors::invalid_argument(array_kernels::element_name("arr", arr.shape(), i),
                                                  " = ", v[i], " is negative"));
      if (v[i] < size) b[v[i]] += weighted ? weights.data<T>()[i] : T{1};
    }
  }
};

template <class T, class I>
class list_diff_op final : public list_diff_bytes<I> {
 public:
  using list_diff_bytes<I>::list_diff_bytes;
};

template <class T, class I>
class unique_with_counts_op final : public unique_with_counts_bytes<I> {
 public:
  using unique_with_counts_bytes<I>::unique_with_counts_bytes;
};

using set_value_types = type_list<float, double, int32_t, int64_t, uint8_t>;
using set_index_types = type_list<int32_t, int64_t>;

}  // namespace

static const typed_kernel_registrar2<list_diff_op, set_value_types, set_index_types>
    list_diff_kernels("ListDiff", device_cpu, "T", "out_idx");
static const typed_kernel_registrar2<unique_with_counts_op, set_value_types, set_index_types>
    unique_with_counts_kernels("UniqueWithCounts", device_cpu, "T", "out_idx");
CAFLOW_REGISTER_TYPED_KERNELS("Bincount", device_cpu, "T", bincount_op, int32_t, int64_t, float,
                              double);

}  // namespace caflow
