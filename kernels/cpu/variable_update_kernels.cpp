// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and CountUpTo: read-modify-writes of a variable
// under its lock. As the row scatters do (scatter_kernels.cpp), every index is checked before
// the first write, and the value is copied first when a reader still holds its bytes.
#include "graph/util/nd_index_rules.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow {
namespace {

enum class nd_kind { update, add, sub };

template <class T, nd_kind kind>
class scatter_nd_update_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    CAFLOW_OP_REQUIRES(ctx, var != nullptr,
                       errors::invalid_argument("ref is not a variable reference"));
    const tensor& indices = ctx.input(1);
    const tensor& updates = ctx.input(2);
    status st = var->update_initialized([&](tensor& value) -> status {
      CAFLOW_RETURN_IF_ERROR(check_scatter_nd(indices.shape(), updates.shape(), value.shape())
                                 .with_context("variable '" + var->name() + "'"));
      CAFLOW_ASSIGN_OR_RETURN(const std::vector<int64_t> offsets,
                              nd_slice_offsets(indices, value.shape()));
      if (offsets.empty()) return {};
      make_updatable(value, ctx.dev());
      const int64_t k = indices.dim(indices.rank() - 1);
      int64_t slice = 1;
      for (int d = static_cast<int>(k); d < value.rank(); ++d) slice *= value.dim(d);
      T* v = value.data<T>();
      const T* u = updates.data<T>();
      for (size_t t = 0; t < offsets.size(); ++t) {
        T* dst = v + offsets[t] * slice;
        const T* src = u + static_cast<int64_t>(t) * slice;
        for (int64_t j = 0; j < slice; ++j) {
          if constexpr (kind == nd_kind::update) dst[j] = src[j];
          else if constexpr (kind == nd_kind::add) dst[j] += src[j];
          else dst[j] -= src[j];
        }
      }
      return {};
    });
    CAFLOW_OP_REQUIRES_OK(ctx, st);
    ctx.set_output_ref(0, var);
  }
};

template <class T>
class count_up_to_op final : public op_kernel {
 public:
  explicit count_up_to_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("limit", &limit_));
  }

  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    CAFLOW_OP_REQUIRES(ctx, var != nullptr,
                       errors::invalid_argument("ref is not a variable reference"));
    T before = 0;
    status st = var->update_initialized([&](tensor& value) -> status {
      if (value.rank() != 0)
        return errors::invalid_argument("variable '", var->name(),
                                        "' must be a scalar, got shape ",
                                        value.shape().to_string());
      before = value.scalar_value<T>();
      if (before >= limit_) return errors::out_of_range("Reached limit of ", limit_);
      make_updatable(value, ctx.dev());
      *value.data<T>() = before + 1;
      return {};
    });
    CAFLOW_OP_REQUIRES_OK(ctx, st);
    ctx.set_output(0, tensor::scalar<T>(before));
  }

 private:
  int64_t limit_ = 0;
};

template <class T, nd_kind kind, class Index>
kernel_def nd_kernel(const char* op) {
  return kernel_def_builder(op)
      .device(device_cpu)
      .type_constraint("T", dtype_v<T>)
      .type_constraint("Tindices", dtype_v<Index>)
      .build([](kernel_construction& c) -> std::unique_ptr<op_kernel> {
        return std::make_unique<scatter_nd_update_op<T, kind>>(c);
      });
}

// Every (T, Tindices) pair of one op.
template <nd_kind kind, class... Ts>
struct nd_registrar {
  explicit nd_registrar(const char* op) {
    ((kernel_registry::global().add(nd_kernel<Ts, kind, int32_t>(op)),
      kernel_registry::global().add(nd_kernel<Ts, kind, int64_t>(op))),
     ...);
  }
};

}  // namespace

static const nd_registrar<nd_kind::update, float, double, int32_t, int64_t, uint8_t, bool>
    scatter_nd_update_kernels("ScatterNdUpdate");
static const nd_registrar<nd_kind::add, float, double, int32_t, int64_t> scatter_nd_add_kernels(
    "ScatterNdAdd");
static const nd_registrar<nd_kind::sub, float, double, int32_t, int64_t> scatter_nd_sub_kernels(
    "ScatterNdSub");
CAFLOW_REGISTER_TYPED_KERNELS("CountUpTo", device_cpu, "T", count_up_to_op, int32_t, int64_t);

}  // namespace caflow
