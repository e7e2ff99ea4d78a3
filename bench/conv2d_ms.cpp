// Milliseconds per Conv2D forward + Conv2DBackpropInput + Conv2DBackpropFilter, run through a
// session on 2 intra-op threads (the PyTorch comparison's setting), for the two convolutions
// of TensorFlow's Fashion-MNIST CNN at batch 100:
//   conv1: [100,28,28,1]  * [5,5,1,32],  SAME
//   conv2: [100,14,14,32] * [5,5,32,64], SAME
// Baseline: the three matrix products of im2col (same shapes, patches already built) as Eigen
// tensor contractions on a 2-thread pool, measured in the same run: the ratio is what im2col,
// col2im and the session add on top of the arithmetic (1.0 would be all arithmetic).
#include <cmath>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/tensor_views.hpp"

using namespace caflow;

namespace {

constexpr int threads = 2;

tensor filled_with_pattern(const tensor_shape& shape, int salt) {
  tensor t(dtype::float32, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.data<float>()[i] = static_cast<float>((i * 7 + salt) % 13) * 0.1f - 0.6f;
  return t;
}

tensor sizes(const tensor_shape& s) {
  return tensor::from_vector<int32_t>({int32_t(s.dim(0)), int32_t(s.dim(1)), int32_t(s.dim(2)),
                                       int32_t(s.dim(3))});
}

struct layer {
  const char* name;
  tensor_shape input, filter;
};

void run_layer(const layer& l) {
  const tensor_shape out{l.input.dim(0), l.input.dim(1), l.input.dim(2), l.filter.dim(3)};
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto w = ops::placeholder(root.with_op_name("w"), dtype::float32);
  auto dy = ops::placeholder(root.with_op_name("dy"), dtype::float32);
  auto y = ops::conv2d(root, x, w);
  auto dx = ops::conv2d_backprop_input(root, ops::constant(root, sizes(l.input)), w, dy);
  auto dw = ops::conv2d_backprop_filter(root, x, ops::constant(root, sizes(l.filter)), dy);
  session sess(root, {.cpu = {.intra_op_threads = threads, .inter_op_threads = 1}});
  const session::feed_list feeds{{x, filled_with_pattern(l.input, 1)},
                                 {w, filled_with_pattern(l.filter, 2)},
                                 {dy, filled_with_pattern(out, 3)}};
  auto check = sess.run(feeds, {y, dx, dw});
  bench::check(check.ok(), "session Conv2D failed");
  for (const tensor& t : *check)
    for (int64_t i = 0; i < t.num_elements(); i += 101)
      bench::check(std::isfinite(t.data<float>()[i]), "non-finite convolution result");

  // The same three products on prepared matrices: M positions, K taps per patch, O outputs.
  const int64_t m = out.num_elements() / out.dim(3), k = l.filter.num_elements() / out.dim(3),
                o = out.dim(3);
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  tensor patches = filled_with_pattern({m, k}, 4), grads = filled_with_pattern({m, o}, 5);
  tensor filter = filled_with_pattern({k, o}, 6);
  tensor fwd(dtype::float32, {m, o}), dpatches(dtype::float32, {m, k}),
      dfilter(dtype::float32, {k, o});
  using pair = Eigen::IndexPair<Eigen::DenseIndex>;
  const Eigen::array<pair, 1> inner{pair(1, 0)}, over_rows{pair(0, 0)}, over_cols{pair(1, 1)};
  auto gemms = [&] {
    matrix<float>(fwd).device(device) = matrix<float>(patches).contract(matrix<float>(filter), inner);
    matrix<float>(dfilter).device(device) =
        matrix<float>(patches).contract(matrix<float>(grads), over_rows);
    matrix<float>(dpatches).device(device) =
        matrix<float>(grads).contract(matrix<float>(filter), over_cols);
  };

  // Interleave the two so drifting machine load hits both alike.
  double ours = 0, base = 0;
  for (int round = 0; round < 3; ++round) {
    ours = std::max(ours, bench::rate([&] { (void)sess.run(feeds, {y, dx, dw}); }, 1.0, 2));
    base = std::max(base, bench::rate(gemms, 1.0, 2));
  }
  bench::result(l.name, 1e3 / ours, "ms", 1e3 / base);
}

}  // namespace

int main() {
  run_layer({"conv2d_ms_conv1", {100, 28, 28, 1}, {5, 5, 1, 32}});
  run_layer({"conv2d_ms_conv2", {100, 14, 14, 32}, {5, 5, 32, 64}});
  return 0;
}
