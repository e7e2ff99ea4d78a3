// The summary kernels (graph/ops/summary_ops.cpp): each writes one serialized Summary into a
// string scalar, with TensorFlow's checks and messages.
#include <cmath>
#include <set>

#include "graph/util/histogram.hpp"
#include "kernels/common/summary_values.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

bool require_scalar_tag(kernel_context& ctx, int i, const char* what) {
  const tensor& t = ctx.input(i);
  if (t.rank() == 0) return true;
  ctx.set_status(errors::invalid_argument(what, " must be a scalar string, not string",
                                          t.shape().to_string()));
  return false;
}

template <class T>
class scalar_summary_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& tags = ctx.input(0);
    const tensor& values = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, tags.shape() == values.shape(),
                       errors::invalid_argument("tags and values not the same shape: ",
                                                tags.shape().to_string(), " != ",
                                                values.shape().to_string()));
    std::string out;
    const T* v = values.data<T>();
    for (int64_t i = 0; i < tags.num_elements(); ++i)
      out += summary_values::scalar(tags.string_at(i), static_cast<float>(v[i]));
    ctx.set_output(0, tensor::string_scalar(out));
  }
};

template <class T>
class histogram_summary_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    if (!require_scalar_tag(ctx, 0, "tag")) return;
    const tensor& values = ctx.input(1);
    const T* v = values.data<T>();
    for (int64_t i = 0; i < values.num_elements(); ++i)
      CAFLOW_OP_REQUIRES(ctx, std::isfinite(static_cast<double>(v[i])),
                         errors::invalid_argument("Nan in summary histogram for: ",
                                                  ctx.input(0).string_at(0)));
    ctx.set_output(0, tensor::string_scalar(summary_values::histogram_value(
                          ctx.input(0).string_at(0), histogram_of(values))));
  }
};

class tensor_summary_v2_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    if (!require_scalar_tag(ctx, 0, "tag")) return;
    if (!require_scalar_tag(ctx, 2, "serialized_summary_metadata")) return;
    ctx.set_output(0, tensor::string_scalar(summary_values::tensor_value(
                          ctx.input(0).string_at(0), ctx.input(2).string_at(0), ctx.input(1))));
  }
};

class tensor_summary_op final : public op_kernel {
 public:
  explicit tensor_summary_op(kernel_construction& c) : op_kernel(c) {
    std::string display_name, description;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("display_name", &display_name));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("description", &description));
    metadata_ = summary_values::metadata(display_name, description);
  }
  void compute(kernel_context& ctx) override {
    ctx.set_output(0, tensor::string_scalar(
                          summary_values::tensor_value(name(), metadata_, ctx.input(0))));
  }

 private:
  std::string metadata_;
};

class merge_summary_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    std::set<std::string> seen;
    std::string out;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const tensor& in = ctx.input(i);
      for (int64_t k = 0; k < in.num_elements(); ++k) {
        const std::string_view summary = in.string_at(k);
        auto tags = summary_values::tags_of(summary);
        CAFLOW_OP_REQUIRES(ctx, tags.ok(),
                           errors::invalid_argument("Could not parse one of the summary inputs "
                                                    "(input ", i, "): ",
                                                    tags.get_status().message()));
        for (const std::string& tag : *tags)
          CAFLOW_OP_REQUIRES(ctx, seen.insert(tag).second,
                             errors::invalid_argument("Duplicate tag ", tag,
                                                      " found in summary inputs"));
        out.append(summary);  // a Summary is a list of Values: appending merges
      }
    }
    ctx.set_output(0, tensor::string_scalar(out));
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ScalarSummary", device_cpu, "T", scalar_summary_op, float, double,
                              int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("HistogramSummary", device_cpu, "T", histogram_summary_op, float,
                              double, int32_t, int64_t, uint8_t);
// The tensor is only encoded: any type, strings included.
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorSummaryV2").device(device_cpu).passes_strings(),
                       tensor_summary_v2_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorSummary").device(device_cpu).passes_strings(),
                       tensor_summary_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("MergeSummary").device(device_cpu), merge_summary_op);

}  // namespace caflow
