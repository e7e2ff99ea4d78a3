// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on the GPU through cuDNN, for NHWC
// float32. Shapes and padding are resolved by the same conv2d_geometry_for as the CPU kernels,
// so both accept the same inputs and word their errors alike.
//
// On the legacy cuDNN API two layout mismatches are bridged by copies on the GPU: caflow's HWIO
// filters (the [patch, out_depth] matrix) are transposed to cuDNN's out_depth-first KRSC and back,
// and padding cuDNN cannot express (SAME's extra row or column after the input) is added to a copy
// of the input, or, for the input gradient, computed over the padded frame and cropped off
// (see window_plan.hpp).
//
// Each kernel keeps, per geometry, what it chose by measurement (plan_cache.hpp): the fastest
// of cuDNN's backend engines (conv_engine.hpp), which read caflow's layouts in place, and the
// legacy API's fastest algorithm (conv_algorithm.hpp), which needs the copies above. The first
// step of a shape pays for the search; later steps only queue the convolution, with a
// workspace of the chosen plan's size from the GPU's BFC. An engine that fails, at the search
// or later, leaves the legacy algorithm in its place, said once on std::clog.
#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "kernels/common/conv_checks.hpp"
#include "kernels/gpu/conv_algorithm.hpp"
#include "kernels/gpu/conv_engine.hpp"
#include "kernels/gpu/conv_engine_policy.hpp"
#include "kernels/gpu/cudnn_support.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"
#include "kernels/gpu/plan_cache.hpp"
#include "kernels/gpu/stream_timer.hpp"

namespace caflow::gpu {
namespace {

// The legacy API's descriptors for one geometry; x describes the padded frame.
template <class Algo>
struct cudnn_conv : conv_descriptors {
  window_plan plan;
  nhwc_dims output;
  measured_algorithm<Algo> chosen;
};

// What one geometry runs with: the engine plan when one was measured fastest, else the legacy
// algorithm (kept beside an engine, as the fallback should the engine fail later).
template <class Algo>
struct conv_choice {
  std::optional<cudnn_conv<Algo>> legacy;
  std::optional<engine_plan> engine;
  // Set by the first run of `engine` that failed: the legacy algorithm runs from then on.
  std::shared_ptr<std::atomic<bool>> engine_failed = std::make_shared<std::atomic<bool>>(false);
};

// Scratch of `bytes` from the GPU's allocator (none when zero).
status_or<tensor> workspace_of(gpu_device& dev, size_t bytes) {
  if (bytes == 0) return tensor();
  return allocate_scratch(dev, bytes);
}
inline void* data_or_null(const tensor& t) { return t.initialized() ? t.raw_data() : nullptr; }

// A convolution's operands (see conv_pointers): x NHWC, w HWIO as caflow holds it, y NHWC.
struct conv_operands {
  tensor x, w, y;
};

conv_alignments alignments_of(const conv_operands& o) {
  return {byte_alignment(o.x.raw_data()), byte_alignment(o.w.raw_data()),
          byte_alignment(o.y.raw_data())};
}

// Everything a choice depends on. The rest is fixed for these kernels: float32, NHWC and
// dilation 1 (other dtypes, formats and dilations are refused at construction).
using conv_key = std::array<int64_t, 16>;
conv_key key_of(const conv2d_geometry& g, const conv_alignments& a) {
  return {g.batch,       g.in_rows,     g.in_cols,     g.in_depth,
          g.filter_rows, g.filter_cols, g.out_depth,   g.out_rows,
          g.out_cols,    g.stride_rows, g.stride_cols, g.pad_top,
          g.pad_left,    a.x,           a.w,           a.y};
}

// The filter (HWIO) in cuDNN's KRSC order, on the compute stream.
status_or<tensor> to_krsc(gpu_device& dev, const tensor& filter, const conv2d_geometry& g) {
  CAFLOW_ASSIGN_OR_RETURN(
      tensor t, dev.allocate(dtype::float32,
                             tensor_shape{g.out_depth, g.filter_rows, g.filter_cols, g.in_depth}));
  launch_transpose<float>(filter.data<float>(), g.patch_size(), g.out_depth, t.data<float>(),
                          dev.compute_stream());
  return t;
}

// Reads and checks Conv2D's attrs once (kernels/common/conv_checks.hpp), and whether the
// engine path is on (CAFLOW_CUDNN_ENGINES, conv_engine_policy.hpp).
template <class Algo, conv_direction Direction>
class cudnn_conv_kernel : public gpu_op_kernel {
 public:
  explicit cudnn_conv_kernel(kernel_construction& c)
      : gpu_op_kernel(c), engines_(engine_switch_from_environment()) {
    CAFLOW_OP_REQUIRES_OK(c, read_conv2d_kernel_params(c, device_gpu, &params_));
  }

 protected:
  using legacy_conv = cudnn_conv<Algo>;

  // The legacy API on the operands: the measured fastest algorithm for `d`, and one run of
  // d.chosen with the copies it needs. Both queue on the handle's stream.
  virtual status_or<measured_algorithm<Algo>> legacy_search(gpu_device& dev, cudnnHandle_t h,
                                                            const legacy_conv& d,
                                                            const conv2d_geometry& g,
                                                            const conv_operands& o) = 0;
  virtual status legacy_run(gpu_device& dev, cudnnHandle_t h, const legacy_conv& d,
                            const conv2d_geometry& g, const conv_operands& o) = 0;

  // The convolution of `g` on `o`, with the choice made for this geometry (made now at its
  // first call). REQUIRES a non-empty output and patch.
  status convolve(gpu_device& dev, const conv2d_geometry& g, const conv_operands& o) {
    CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
    // The stream is asked for on every call: it may depend on the calling thread.
    CAFLOW_RETURN_IF_ERROR(
        cudnn_status(cudnnSetStream(cudnn.handle, dev.compute_stream()), "cudnnSetStream"));
    const conv_alignments a = alignments_of(o);
    CAFLOW_ASSIGN_OR_RETURN(
        auto c, plans_.get(key_of(g, a), [&] { return choose(dev, cudnn.handle, g, o, a); }));
    if (c->engine && !c->engine_failed->load()) {
      status s = engine_run(dev, cudnn.handle, *c->engine, g, o);
      if (s.ok() || !c->legacy) return s;
      if (!c->engine_failed->exchange(true)) log_fallback(g, s);
    }
    return legacy_run(dev, cudnn.handle, *c->legacy, g, o);
  }

 private:
  // The legacy algorithm, and with the engine path on every engine plan, timed alike on the
  // kernel's own buffers (copies included); the fastest is kept.
  status_or<conv_choice<Algo>> choose(gpu_device& dev, cudnnHandle_t h, const conv2d_geometry& g,
                                      const conv_operands& o, const conv_alignments& a) {
    conv_choice<Algo> c;
    auto legacy = [&]() -> status_or<legacy_conv> {
      CAFLOW_ASSIGN_OR_RETURN(legacy_conv d, describe(g));
      CAFLOW_ASSIGN_OR_RETURN(d.chosen, legacy_search(dev, h, d, g, o));
      return d;
    }();
    if (legacy.ok()) c.legacy = std::move(legacy).value();
    if (!engines_.on) {
      if (!c.legacy) return legacy.get_status();
      return c;
    }
    auto engines = engine_candidates(h, Direction, g, a);
    if (!engines.ok()) {
      if (!c.legacy) return legacy.get_status();
      log_fallback(g, engines.get_status());
      return c;
    }
    std::vector<candidate_time> times;
    std::vector<std::string> refused;  // per candidate, for the log: why it is out
    float best = std::numeric_limits<float>::infinity();
    status last;
    auto measure = [&](const std::function<status()>& queue) {
      auto ms = time_on_stream(dev, queue, best * give_up_factor);
      refused.emplace_back();
      if (ms.ok()) {
        best = std::min(best, *ms);
        times.push_back({*ms});
      } else {
        last = ms.get_status();
        refused.back() = last.message();
        times.push_back({});
      }
    };
    // The legacy algorithm's result is what every engine must agree with: an engine that
    // mishandles a layout or padding, or loses precision (some FFT and Winograd variants), is
    // out of the race however fast it is.
    tensor reference;
    if (c.legacy) {
      status ran = legacy_run(dev, h, *c.legacy, g, o);
      auto host = ran.ok() ? dev.copy_to_host(output_of(o)) : status_or<tensor>(ran);
      if (host.ok()) reference = std::move(host).value();
    }
    for (const engine_plan& e : *engines) {
      measure([&] { return engine_run(dev, h, e, g, o); });
      if (!times.back().ms || !reference.initialized()) continue;
      status agrees = agrees_with(dev, output_of(o), reference);
      if (!agrees.ok()) {
        last = agrees.with_context("engine " + std::to_string(e.engine));
        refused.back() = std::to_string(*times.back().ms) + " ms but " + agrees.message();
        times.back() = {};
      }
    }
    const bool engine_ran = fastest_candidate(times).has_value();
    if (c.legacy) measure([&] { return legacy_run(dev, h, *c.legacy, g, o); });
    const auto fastest = fastest_candidate(times);
    if (!fastest) return last;
    if (!engine_ran) log_fallback(g, last);
    if (engines_.log_choices) log_choice(g, *engines, times, refused, *fastest);
    if (*fastest < engines->size()) c.engine = std::move((*engines)[*fastest]);
    return c;
  }

  // The operand the convolution writes: y forward, x for the input gradient, w for the filter's.
  static const tensor& output_of(const conv_operands& o) {
    if constexpr (Direction == conv_direction::forward) return o.y;
    else if constexpr (Direction == conv_direction::backward_data) return o.x;
    else return o.w;
  }

  // Whether `out` (on the GPU) matches `reference` (on the host) to within float32 rounding of
  // differently ordered sums: 1e-4 of the largest magnitude (at least 1) per element. On an
  // H100, engines that sum in another order differ from the legacy result by 5e-6 to 6e-6 of
  // it (sums of 10^3 to 10^4 products), while one that misreads a layout is off by 10% or more.
  static constexpr double agreement = 1e-4;
  static status agrees_with(gpu_device& dev, const tensor& out, const tensor& reference) {
    CAFLOW_ASSIGN_OR_RETURN(tensor got, dev.copy_to_host(out));
    const float* a = got.data<float>();
    const float* r = reference.data<float>();
    double scale = 1;
    for (int64_t i = 0; i < reference.num_elements(); ++i)
      scale = std::max(scale, static_cast<double>(std::abs(r[i])));
    for (int64_t i = 0; i < reference.num_elements(); ++i) {
      const double diff = std::abs(static_cast<double>(a[i]) - static_cast<double>(r[i]));
      if (!(diff <= agreement * scale))
        return errors::internal("element ", i, " is ", a[i], " where the legacy algorithm gives ",
                                r[i], " (beyond ", agreement, " of ", scale, ")");
    }
    return {};
  }

  // Queues plan `p` on the operands: the filter read in place when the plan takes HWIO, else
  // through a KRSC copy (and, for the filter gradient, back).
  status engine_run(gpu_device& dev, cudnnHandle_t h, const engine_plan& p,
                    const conv2d_geometry& g, const conv_operands& o) {
    CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_of(dev, static_cast<size_t>(p.workspace_bytes)));
    tensor w = o.w;
    if (p.layout == filter_layout::krsc) {
      if constexpr (Direction == conv_direction::backward_filter) {
        CAFLOW_ASSIGN_OR_RETURN(
            w, dev.allocate(dtype::float32,
                            tensor_shape{g.out_depth, g.filter_rows, g.filter_cols, g.in_depth}));
      } else {
        CAFLOW_ASSIGN_OR_RETURN(w, to_krsc(dev, o.w, g));
      }
    }
    CAFLOW_RETURN_IF_ERROR(
        execute(h, p, {o.x.raw_data(), w.raw_data(), o.y.raw_data()}, data_or_null(ws)));
    if (Direction == conv_direction::backward_filter && p.layout == filter_layout::krsc) {
      // KRSC, read as [out_depth, patch], back to HWIO.
      launch_transpose<float>(w.data<float>(), g.out_depth, g.patch_size(), o.w.data<float>(),
                              dev.compute_stream());
    }
    return {};
  }

  // "Conv2D 'name' on input [n,h,w,c] with filter [r,s,c,k], strides r,c", for the log.
  std::string shape_text(const conv2d_geometry& g) const {
    std::ostringstream text;
    text << type_string() << " '" << name() << "' on input [" << g.batch << "," << g.in_rows << ","
         << g.in_cols << "," << g.in_depth << "] with filter [" << g.filter_rows << ","
         << g.filter_cols << "," << g.in_depth << "," << g.out_depth << "], strides "
         << g.stride_rows << "," << g.stride_cols;
    return text.str();
  }

  // One line per kernel and geometry: the search gives way at most once per geometry, and a
  // chosen engine that fails later once more.
  void log_fallback(const conv2d_geometry& g, const status& why) const {
    std::clog << "caflow: " + shape_text(g) +
                     ": cuDNN's engines give way to its legacy algorithm (" + why.to_string() +
                     ")\n"
              << std::flush;
  }

  // With CAFLOW_CUDNN_ENGINES=log: what was chosen, against the legacy algorithm (timed last).
  void log_choice(const conv2d_geometry& g, const std::vector<engine_plan>& engines,
                  const std::vector<candidate_time>& times, const std::vector<std::string>& refused,
                  size_t fastest) const {
    std::ostringstream line;
    line << "caflow: " << shape_text(g) << ": ";
    if (fastest < engines.size())
      line << "engine " << engines[fastest].engine << " (" << to_string(engines[fastest].layout)
           << " filter, " << engines[fastest].workspace_bytes << " bytes of workspace) "
           << *times[fastest].ms << " ms";
    else
      line << "the legacy algorithm";
    line << " of " << engines.size() << " engine plans";
    if (times.size() > engines.size() && times.back().ms)
      line << "; legacy " << *times.back().ms << " ms";
    line << "\n";
    for (size_t i = 0; i < engines.size(); ++i) {
      line << "  engine " << engines[i].engine << " (" << to_string(engines[i].layout) << "): ";
      if (times[i].ms) line << *times[i].ms << " ms\n";
      else line << "out: " << refused[i] << "\n";
    }
    std::clog << line.str() << std::flush;
  }

  // The legacy descriptors. REQUIRES a non-empty output and patch.
  static status_or<legacy_conv> describe(const conv2d_geometry& g) {
    legacy_conv d;
    d.plan = plan_window(g);
    d.output = {g.batch, g.out_rows, g.out_cols, g.out_depth};
    CAFLOW_RETURN_IF_ERROR(check_cudnn_sizes(
        {d.plan.padded, d.output, {g.out_depth, g.filter_rows, g.filter_cols, g.in_depth}}));
    CAFLOW_ASSIGN_OR_RETURN(d.x, make_tensor_descriptor(d.plan.padded));
    CAFLOW_ASSIGN_OR_RETURN(d.y, make_tensor_descriptor(d.output));
    CAFLOW_ASSIGN_OR_RETURN(
        d.w, make_filter_descriptor(g.out_depth, g.filter_rows, g.filter_cols, g.in_depth));
    CAFLOW_ASSIGN_OR_RETURN(
        d.conv, make_convolution_descriptor(d.plan.rows.cudnn, d.plan.cols.cudnn, g.stride_rows,
                                            g.stride_cols));
    // cuDNN refuses an output of another size; saying so here names both sizes.
    int n = 0, c = 0, h = 0, w = 0;
    CAFLOW_RETURN_IF_ERROR(cudnn_status(
        cudnnGetConvolution2dForwardOutputDim(d.conv.get(), d.x.get(), d.w.get(), &n, &c, &h, &w),
        "cudnnGetConvolution2dForwardOutputDim"));
    if (n != g.batch || c != g.out_depth || h != g.out_rows || w != g.out_cols)
      return errors::internal("cuDNN's convolution gives [", n, ",", h, ",", w, ",", c,
                              "] where TensorFlow's gives ", g.output_shape().to_string());
    return d;
  }

 protected:
  conv2d_params params_;

 private:
  const engine_switch engines_;
  plan_cache<conv_key, conv_choice<Algo>> plans_;
};

class conv2d_op final
    : public cudnn_conv_kernel<cudnnConvolutionFwdAlgo_t, conv_direction::forward> {
  using algo = cudnnConvolutionFwdAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    CAFLOW_GPU_INPUT(input, ctx, dev, 0);
    CAFLOW_GPU_INPUT(filter, ctx, dev, 1);
    auto resolved = conv2d_kernel_geometry(params_, input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor out = allocate_output(ctx, dev, 0, g.output_shape());
    if (!out.initialized() || out.num_elements() == 0) return;
    if (g.patch_size() == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, convolve(dev, g, {input, filter, out}));
  }

 private:
  status_or<measured_algorithm<algo>> legacy_search(gpu_device& dev, cudnnHandle_t h,
                                                    const legacy_conv& d, const conv2d_geometry& g,
                                                    const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, o.x, d.plan, 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, o.w, g));
    return measure_forward(dev, h, d, x.data<float>(), w.data<float>(), o.y.data<float>());
  }

  status legacy_run(gpu_device& dev, cudnnHandle_t h, const legacy_conv& d,
                    const conv2d_geometry& g, const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, o.x, d.plan, 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, o.w, g));
    CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_of(dev, d.chosen.workspace_bytes));
    const float one = 1, zero = 0;
    return cudnn_status(
        cudnnConvolutionForward(h, &one, d.x.get(), x.data<float>(), d.w.get(), w.data<float>(),
                                d.conv.get(), d.chosen.algo, data_or_null(ws),
                                d.chosen.workspace_bytes, &zero, d.y.get(), o.y.data<float>()),
        "cudnnConvolutionForward");
  }
};

class conv2d_backprop_input_op final
    : public cudnn_conv_kernel<cudnnConvolutionBwdDataAlgo_t, conv_direction::backward_data> {
  using algo = cudnnConvolutionBwdDataAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    auto sizes = host_input(ctx, dev, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    CAFLOW_GPU_INPUT(filter, ctx, dev, 1);
    CAFLOW_GPU_INPUT(out_backprop, ctx, dev, 2);
    auto resolved =
        conv2d_backprop_input_geometry(params_, *sizes, filter.shape(), out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor out = allocate_output(ctx, dev, 0, resolved->shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    // No output position (or no output channel) reads the input: its gradient is zero.
    if (g.out_pixels() == 0 || g.out_depth == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, convolve(dev, g, {out, filter, out_backprop}));
  }

 private:
  status_or<measured_algorithm<algo>> legacy_search(gpu_device& dev, cudnnHandle_t h,
                                                    const legacy_conv& d, const conv2d_geometry& g,
                                                    const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, o.w, g));
    CAFLOW_ASSIGN_OR_RETURN(tensor dx, gradient_frame(dev, d.plan, o.x));
    return measure_backward_data(dev, h, d, w.data<float>(), o.y.data<float>(), dx.data<float>());
  }

  status legacy_run(gpu_device& dev, cudnnHandle_t h, const legacy_conv& d,
                    const conv2d_geometry& g, const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, o.w, g));
    // The gradient over cuDNN's frame; the extra padding's part is cropped off below.
    CAFLOW_ASSIGN_OR_RETURN(tensor dx, gradient_frame(dev, d.plan, o.x));
    CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_of(dev, d.chosen.workspace_bytes));
    const float one = 1, zero = 0;
    CAFLOW_RETURN_IF_ERROR(
        cudnn_status(cudnnConvolutionBackwardData(h, &one, d.w.get(), w.data<float>(), d.y.get(),
                                                  o.y.data<float>(), d.conv.get(), d.chosen.algo,
                                                  data_or_null(ws), d.chosen.workspace_bytes, &zero,
                                                  d.x.get(), dx.data<float>()),
                     "cudnnConvolutionBackwardData"));
    tensor out = o.x;
    crop_from_frame(dev, d.plan, dx, out);
    return {};
  }
};

class conv2d_backprop_filter_op final
    : public cudnn_conv_kernel<cudnnConvolutionBwdFilterAlgo_t, conv_direction::backward_filter> {
  using algo = cudnnConvolutionBwdFilterAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    CAFLOW_GPU_INPUT(input, ctx, dev, 0);
    auto sizes = host_input(ctx, dev, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    CAFLOW_GPU_INPUT(out_backprop, ctx, dev, 2);
    auto resolved =
        conv2d_backprop_filter_geometry(params_, input.shape(), *sizes, out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor out = allocate_output(ctx, dev, 0, resolved->shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    if (g.out_pixels() == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, convolve(dev, g, {input, out, out_backprop}));
  }

 private:
  // The filter gradient in KRSC order, as the legacy API writes it.
  static status_or<tensor> krsc_scratch(gpu_device& dev, const conv2d_geometry& g) {
    return dev.allocate(dtype::float32,
                        tensor_shape{g.out_depth, g.filter_rows, g.filter_cols, g.in_depth});
  }

  status_or<measured_algorithm<algo>> legacy_search(gpu_device& dev, cudnnHandle_t h,
                                                    const legacy_conv& d, const conv2d_geometry& g,
                                                    const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, o.x, d.plan, 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor dw, krsc_scratch(dev, g));
    return measure_backward_filter(dev, h, d, x.data<float>(), o.y.data<float>(), dw.data<float>());
  }

  status legacy_run(gpu_device& dev, cudnnHandle_t h, const legacy_conv& d,
                    const conv2d_geometry& g, const conv_operands& o) override {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, o.x, d.plan, 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor dw, krsc_scratch(dev, g));
    CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_of(dev, d.chosen.workspace_bytes));
    const float one = 1, zero = 0;
    CAFLOW_RETURN_IF_ERROR(
        cudnn_status(cudnnConvolutionBackwardFilter(h, &one, d.x.get(), x.data<float>(), d.y.get(),
                                                    o.y.data<float>(), d.conv.get(), d.chosen.algo,
                                                    data_or_null(ws), d.chosen.workspace_bytes,
                                                    &zero, d.w.get(), dw.data<float>()),
                     "cudnnConvolutionBackwardFilter"));
    // KRSC, read as [out_depth, patch], back to HWIO.
    launch_transpose<float>(dw.data<float>(), g.out_depth, g.patch_size(), o.w.data<float>(),
                            dev.compute_stream());
    return {};
  }
};

}  // namespace

// input_sizes and filter_sizes are read on the host (one small copy back when they are on the
// GPU): the registry has no host-memory arguments yet.
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Conv2D").device(device_gpu).type_constraint<float>("T"),
                       conv2d_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("Conv2DBackpropInput").device(device_gpu).type_constraint<float>("T"),
    conv2d_backprop_input_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("Conv2DBackpropFilter").device(device_gpu).type_constraint<float>("T"),
    conv2d_backprop_filter_op);

}  // namespace caflow::gpu
