// GPU kernels one at a time, each run directly through the kernel registry on GPU:0 (no
// session, no executor), for a per-op table against PyTorch: MatMul TFLOP/s, AddV2/Relu/Sum
// GB/s over 64M floats, Conv2D and its two backprops in ms, and the wall time of a 4-element
// AddV2 (launch cost) in us. bench/pytorch_gpu_kernels.py times the same ops with torch on the
// same GPU and prints the same lines; bench/compare_gpu_kernels.py puts the two side by side.
//
// Output, one line per op:   GPUK <op> <value> <unit>
// With no visible GPU:       gpu_kernels: skipped: no GPU (<why>)       (exit status 0)
//
// Timing: inputs are on the GPU before the clock starts; each op is warmed up (which also runs
// cuDNN's algorithm search and cuBLASLt's planning), then run in batches, doubling, until a
// batch takes 0.2 s; the GPU is synchronized after each batch, nothing is copied back.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "graph/ir/node_signature.hpp"
#include "graph/ir/op_def.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/op_kernel.hpp"
#include "kernels/framework/step_context.hpp"

using namespace caflow;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "gpu_kernels: %s\n", what.c_str());
  std::exit(1);
}

tensor pattern(const tensor_shape& shape, int salt) {
  tensor t(dtype::float32, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i)
    p[i] = static_cast<float>((i * 7 + salt) % 13) * 0.1f - 0.6f;
  return t;
}

tensor sizes_of(const tensor_shape& s) {
  std::vector<int32_t> v;
  for (int i = 0; i < s.rank(); ++i) v.push_back(static_cast<int32_t>(s.dim(i)));
  return tensor::from_vector<int32_t>(v);
}

// One kernel with its inputs already on the GPU, run again and again.
class gpu_op {
 public:
  gpu_op(device& gpu, const std::string& op_name, const std::vector<tensor>& host_inputs,
         std::map<std::string, attr_value> attrs)
      : gpu_(gpu) {
    auto op = op_registry::global().find(op_name);
    if (!op.ok()) fail(op.get_status().to_string());
    node_.name = "bench_" + op_name;
    node_.op = op_name;
    node_.attrs = std::move(attrs);
    add_default_attrs(**op, node_);
    auto sig = resolve_signature(**op, node_);
    if (!sig.ok()) fail(sig.get_status().to_string());
    auto k = kernel_registry::global().create(node_, *sig, gpu);
    if (!k.ok()) fail(k.get_status().to_string());
    kernel_ = std::move(k).value();
    in_.resize(host_inputs.size());
    out_.resize(sig->output_types.size());
    for (size_t i = 0; i < host_inputs.size(); ++i) {
      // What the kernel reads in host memory (a backprop's sizes) stays there, as in a graph;
      // on the GPU, every run would first wait for a copy back.
      if (kernel_->input_on_host(static_cast<int>(i))) {
        in_[i].value = host_inputs[i];
        continue;
      }
      auto t = copy_to_gpu(gpu, host_inputs[i]);
      if (!t.ok()) fail(t.get_status().to_string());
      in_[i].value = std::move(t).value();
    }
  }

  void run() {
    cancellation_manager cancel;
    call_frame frame;
    step_context step{1, &frame, &cancel, nullptr};
    kernel_context ctx(*kernel_, gpu_, step, in_.data(), out_.data());
    kernel_->compute(ctx);
    if (!ctx.ok()) fail(ctx.get_status().with_context(describe_node(node_)).to_string());
  }

 private:
  device& gpu_;
  node_def node_;
  std::unique_ptr<op_kernel> kernel_;
  std::vector<kernel_value> in_, out_;
};

void synchronize() {
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    fail(std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e));
}

// Seconds per run of `op`.
double seconds_per_run(gpu_op& op) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) op.run();
  synchronize();
  for (int batch = 1;; batch *= 2) {
    const auto start = clock::now();
    for (int i = 0; i < batch; ++i) op.run();
    synchronize();
    const double s = std::chrono::duration<double>(clock::now() - start).count();
    if (s >= 0.2 || batch >= (1 << 16)) return s / batch;
  }
}

void report(const char* name, double value, const char* unit) {
  std::printf("GPUK %s %.4g %s\n", name, value, unit);
  std::fflush(stdout);
}

std::map<std::string, attr_value> conv_attrs() {
  return {{"T", dtype::float32}, {"strides", std::vector<int>{1, 1, 1, 1}}, {"padding", "SAME"}};
}

struct conv_layer {
  const char* name;
  tensor_shape input, filter;
};

}  // namespace

int main() {
  const gpu_enumeration& gpus = local_gpus();
  if (gpus.gpus.empty()) {
    std::printf("gpu_kernels: skipped: no GPU (%s)\n", gpus.why_none.c_str());
    return 0;
  }
  auto made = make_local_gpu_devices({.allow_growth = true}, "localhost", 0);
  if (!made.ok() || made->empty())
    fail(made.ok() ? "no GPU device was made" : made.get_status().to_string());
  device& gpu = *made->front();
  std::fprintf(stderr, "gpu_kernels: on %s\n", gpus.gpus.front().name.c_str());

  for (int64_t n : {1024, 4096, 8192}) {
    const tensor_shape s{n, n};
    gpu_op op(gpu, "MatMul", {pattern(s, 1), pattern(s, 2)}, {{"T", dtype::float32}});
    const std::string name = "matmul_" + std::to_string(n);
    report(name.c_str(), 2.0 * n * n * n / seconds_per_run(op) / 1e12, "TFLOP/s");
  }

  constexpr int64_t big = int64_t{64} << 20;
  const double gb = static_cast<double>(big) * sizeof(float) / 1e9;
  {
    const tensor x = pattern(tensor_shape{big}, 3), y = pattern(tensor_shape{big}, 4);
    gpu_op add(gpu, "AddV2", {x, y}, {{"T", dtype::float32}});
    report("addv2_64m", 3 * gb / seconds_per_run(add), "GB/s");
    gpu_op relu(gpu, "Relu", {x}, {{"T", dtype::float32}});
    report("relu_64m", 2 * gb / seconds_per_run(relu), "GB/s");
    gpu_op sum(gpu, "Sum", {x, tensor::from_vector<int32_t>({0})},
               {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"keep_dims", false}});
    report("sum_64m", gb / seconds_per_run(sum), "GB/s");
  }

  const conv_layer layers[] = {
      {"conv_28x28x1_32_5x5", {100, 28, 28, 1}, {5, 5, 1, 32}},
      {"conv_14x14x32_64_5x5", {100, 14, 14, 32}, {5, 5, 32, 64}},
      {"conv_14x14x256_256_3x3", {64, 14, 14, 256}, {3, 3, 256, 256}},
  };
  for (const conv_layer& l : layers) {
    const tensor_shape out{l.input.dim(0), l.input.dim(1), l.input.dim(2), l.filter.dim(3)};
    const tensor x = pattern(l.input, 5), w = pattern(l.filter, 6), dy = pattern(out, 7);
    gpu_op fwd(gpu, "Conv2D", {x, w}, conv_attrs());
    report((std::string(l.name) + "_fwd").c_str(), seconds_per_run(fwd) * 1e3, "ms");
    gpu_op bwd_input(gpu, "Conv2DBackpropInput", {sizes_of(l.input), w, dy}, conv_attrs());
    report((std::string(l.name) + "_bwd_input").c_str(), seconds_per_run(bwd_input) * 1e3, "ms");
    gpu_op bwd_filter(gpu, "Conv2DBackpropFilter", {x, sizes_of(l.filter), dy}, conv_attrs());
    report((std::string(l.name) + "_bwd_filter").c_str(), seconds_per_run(bwd_filter) * 1e3, "ms");
  }

  {
    const tensor_shape s{4};
    gpu_op add(gpu, "AddV2", {pattern(s, 8), pattern(s, 9)}, {{"T", dtype::float32}});
    report("addv2_4_launch", seconds_per_run(add) * 1e6, "us");
  }
  return 0;
}
