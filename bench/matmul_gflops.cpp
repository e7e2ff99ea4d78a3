// GFLOP/s of a 1024x1024 by 1024x1024 float32 MatMul run through a session, against Eigen's
// own tensor contraction on a thread pool of the same size, measured in the same run.
// Target ratio: at least 0.95.
#include <thread>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/tensor_views.hpp"

using namespace caflow;

int main() {
  constexpr int64_t n = 1024;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double flops = 2.0 * n * n * n;

  tensor x(dtype::float32, tensor_shape{n, n}), y(dtype::float32, tensor_shape{n, n});
  for (int64_t i = 0; i < n * n; ++i) {
    x.data<float>()[i] = static_cast<float>(i % 7) * 0.25f;
    y.data<float>()[i] = static_cast<float>(i % 5) * 0.5f;
  }

  auto root = scope::new_root();
  auto a = ops::placeholder(root.with_op_name("a"), dtype::float32);
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float32);
  auto product = ops::mat_mul(root.with_op_name("product"), a, b);
  session sess(root, {.cpu = {.intra_op_threads = threads, .inter_op_threads = 1}});
  const session::feed_list feeds{{a, x}, {b, y}};
  auto check = sess.run(feeds, {product});
  bench::check(check.ok(), "session MatMul failed");

  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  tensor z(dtype::float32, tensor_shape{n, n});
  const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims{Eigen::IndexPair<Eigen::DenseIndex>(1, 0)};
  auto eigen_matmul = [&] { matrix<float>(z).device(device) = matrix<float>(x).contract(matrix<float>(y), dims); };
  eigen_matmul();
  // Same values from both (up to summation order).
  double max_diff = 0;
  for (int64_t i = 0; i < n * n; i += 997)
    max_diff = std::max(max_diff, double(std::abs(z.data<float>()[i] - check->at(0).data<float>()[i])));
  bench::check(max_diff < 1e-2, "session MatMul differs from Eigen");

  // Interleave the two so drifting machine load hits both alike.
  double ours = 0, base = 0;
  for (int round = 0; round < 3; ++round) {
    ours = std::max(ours, bench::rate([&] { (void)sess.run(feeds, {product}); }, 1.5, 1));
    base = std::max(base, bench::rate(eigen_matmul, 1.5, 1));
  }
  bench::result("matmul_gflops", ours * flops / 1e9, "GFLOP/s", base * flops / 1e9);
  return 0;
}
