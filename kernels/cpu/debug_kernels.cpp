// Assert and Print (both show tensors as TensorFlow's SummarizeValue does: the first
// `summarize` elements, space-separated, then "..." when there are more), CheckNumerics,
// EnsureShape, the pass-throughs PreventGradient, IdentityN and Snapshot, and DebugStall.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "graph/core/log.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

std::string summarize(const tensor& t, int64_t n) {
  std::ostringstream os;
  const int64_t total = t.num_elements();
  const int64_t shown = n < 0 ? total : std::min(n, total);
  visit_dtype(t.type(), [&]<class T>() {
    const T* v = t.data<T>();
    for (int64_t i = 0; i < shown; ++i) {
      if (i > 0) os << ' ';
      if constexpr (std::is_same_v<T, uint8_t>) os << static_cast<int>(v[i]);
      else os << v[i];
    }
  });
  if (shown < total) os << "...";
  return os.str();
}

class assert_op final : public op_kernel {
 public:
  explicit assert_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("summarize", &summarize_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& cond = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, cond.rank() == 0,
                       errors::invalid_argument("condition must be a scalar, got shape ",
                                                cond.shape().to_string()));
    if (cond.scalar_value<bool>()) return;
    std::string msg = "assertion failed:";
    for (int i = 1; i < ctx.num_inputs(); ++i)
      msg += " [" + summarize(ctx.input(i), summarize_) + "]";
    ctx.set_status(errors::invalid_argument(msg));
  }

 private:
  int64_t summarize_ = 3;
};

class print_op final : public op_kernel {
 public:
  explicit print_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("message", &message_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("first_n", &first_n_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("summarize", &summarize_));
  }

  void compute(kernel_context& ctx) override {
    ctx.set_output(0, ctx.input(0));
    if (first_n_ >= 0 && printed_.fetch_add(1) >= first_n_) return;
    std::string msg = message_;
    for (int i = 1; i < ctx.num_inputs(); ++i)
      msg += "[" + summarize(ctx.input(i), summarize_) + "]";
    // One write per line, so lines of concurrent steps do not interleave.
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    std::cerr << msg << std::endl;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1, summarize_ = 3;
  std::atomic<int64_t> printed_{0};
};

template <class T>
class check_numerics_op final : public op_kernel {
 public:
  explicit check_numerics_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("message", &message_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const T* v = x.data<T>();
    bool nan = false, inf = false;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      nan |= std::isnan(v[i]);
      inf |= std::isinf(v[i]);
    }
    CAFLOW_OP_REQUIRES(ctx, !nan && !inf,
                       errors::invalid_argument(message_, " : Tensor had ",
                                                nan && inf ? "Inf and NaN" : nan ? "NaN" : "Inf",
                                                " values"));
    ctx.set_output(0, x);
  }

 private:
  std::string message_;
};

class ensure_shape_op final : public op_kernel {
 public:
  explicit ensure_shape_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shape", &shape_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, shape_.compatible_with(x.shape()),
                       errors::invalid_argument("shape of tensor ", x.shape().to_string(),
                                                " is not compatible with expected shape ",
                                                shape_.to_string()));
    ctx.set_output(0, x);
  }

 private:
  partial_shape shape_;
};

// PreventGradient and IdentityN: every input is its output.
class pass_through_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
  }
};

class snapshot_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    tensor* out = ctx.allocate_output(0, x.shape());
    if (out && x.byte_size() > 0) std::memcpy(out->raw_data(), x.raw_data(), x.byte_size());
  }
};

// Ignores cancellation on purpose: what a step's deadline must catch is a kernel that does not
// come back, on a task whose process and links stay healthy.
class debug_stall_op final : public op_kernel {
 public:
  explicit debug_stall_op(kernel_construction& c) : op_kernel(c) {
    float seconds = 0;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seconds", &seconds));
    CAFLOW_OP_REQUIRES(c, seconds >= 0 && seconds <= 86400,
                       errors::invalid_argument("seconds must lie in [0, 86400], not ", seconds));
    stall_ = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<float>(seconds));
  }
  void compute(kernel_context& ctx) override {
    const tensor& stall = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, stall.rank() == 0,
                       errors::invalid_argument("stall must be a scalar, not ", stall.shape().to_string()));
    if (stall.scalar_value<bool>()) {
      write_log(log_level::warn, name(), "stalling for ", stall_.count(), " ms (DebugStall)");
      std::this_thread::sleep_for(stall_);
    }
    ctx.set_output(0, stall);
  }

 private:
  std::chrono::milliseconds stall_{0};
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("CheckNumerics", device_cpu, "T", check_numerics_op, float, double);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("DebugStall").device(device_cpu), debug_stall_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("EnsureShape").device(device_cpu), ensure_shape_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("PreventGradient").device(device_cpu), pass_through_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("IdentityN").device(device_cpu), pass_through_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Snapshot").device(device_cpu), snapshot_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Assert").device(device_cpu), assert_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Print").device(device_cpu), print_op);

}  // namespace caflow
