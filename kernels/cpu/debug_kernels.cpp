// Assert and Print. Both show tensors as TensorFlow's SummarizeValue does: the first
// `summarize` elements, space-separated, then "..." when there are more.
#include <atomic>
#include <iostream>
#include <mutex>
#include <sstream>

#include "kernels/kernel_registry.hpp"

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

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("Assert").device(device_cpu), assert_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Print").device(device_cpu), print_op);

}  // namespace caflow
