// RandomUniform, RandomStandardNormal, TruncatedNormal: the Philox stream layout, seeding and
// stream continuation, independence from the thread count, sample statistics, and errors.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>
#include <tuple>

#include "actors/session/session.hpp"
#include "devices/cpu_device.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/random_ops.hpp"
#include "kernels/cpu/random_philox.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

namespace caflow {
namespace {

using testing::check_error;
using testing::check_tensor;
using testing::run_kernel;

const char* const random_ops[] = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"};

tensor dims64(const std::vector<int64_t>& dims) { return tensor::from_vector<int64_t>(dims); }
tensor dims32(const std::vector<int32_t>& dims) { return tensor::from_vector<int32_t>(dims); }

std::map<std::string, attr_value> seeded(dtype type, int64_t seed, int64_t seed2) {
  return {{"dtype", type}, {"seed", seed}, {"seed2", seed2}};
}

cpu_device& device_with_threads(int intra_threads) {
  static cpu_device one("/job:localhost/replica:0/task:0/device:CPU:1",
                        cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 1});
  static cpu_device four("/job:localhost/replica:0/task:0/device:CPU:4",
                         cpu_device_options{.intra_op_threads = 4, .inter_op_threads = 1});
  return intra_threads == 1 ? one : four;
}

// One kernel instance run for several steps, as an executor runs it. It skips the shape
// function, so invalid shapes reach the kernel's own run-time checks.
class kernel_runner {
 public:
  kernel_runner(const std::string& op, dtype type, int64_t seed, int64_t seed2,
                cpu_device& dev = device_with_threads(4))
      : dev_(dev) {
    node_.name = "rng";
    node_.op = op;
    node_.attrs = seeded(type, seed, seed2);
    node_.attrs["T"] = dtype::int64;
    const op_def* def = op_registry::global().lookup(op);
    REQUIRE(def != nullptr);
    add_default_attrs(*def, node_);
    auto sig = resolve_signature(*def, node_);
    REQUIRE(sig.ok());
    sig_ = *sig;
    auto kernel = kernel_registry::global().create(node_, sig_, dev_);
    REQUIRE(kernel.ok());
    kernel_ = std::move(kernel).value();
  }

  // Shapes may be int32 or int64: the kernel reads either whatever T says.
  status_or<tensor> step(const tensor& shape) {
    kernel_value in, out;
    in.value = shape;
    cancellation_manager cancel;
    call_frame frame;
    step_context step{++step_id_, &frame, &cancel, nullptr};
    kernel_context ctx(*kernel_, dev_, step, &in, &out);
    kernel_->compute(ctx);
    if (!ctx.ok()) return ctx.get_status();
    return out.value;
  }

 private:
  cpu_device& dev_;
  node_def node_;
  node_signature sig_;
  std::unique_ptr<op_kernel> kernel_;
  std::atomic<int64_t> step_id_{0};  // steps may run concurrently (one test does)
};

template <class T>
std::vector<double> as_doubles(const tensor& t) {
  REQUIRE(t.type() == dtype_v<T>);
  const T* p = t.data<T>();
  return std::vector<double>(p, p + t.num_elements());
}

struct moments {
  double mean = 0, variance = 0, min = 0, max = 0, within_one = 0;  // within_one: P(|x| < 1)
};

moments moments_of(const std::vector<double>& xs) {
  moments m;
  const double n = static_cast<double>(xs.size());
  for (double x : xs) m.mean += x / n;
  for (double x : xs) m.variance += (x - m.mean) * (x - m.mean) / (n - 1);
  m.min = *std::min_element(xs.begin(), xs.end());
  m.max = *std::max_element(xs.begin(), xs.end());
  for (double x : xs) m.within_one += (std::abs(x) < 1) / n;
  return m;
}

// Statistical checks allow 5 standard errors: seeds are fixed, so they either always pass or
// always fail, and 5 sigma keeps a correct sampler with an unlucky seed from failing.
constexpr int64_t stat_samples = 100'000;
constexpr double z_tol = 5;

}  // namespace

TEST_CASE("Philox4x32-10 reproduces the Random123 known-answer vectors") {
  using random::philox4x32_10;
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
        random::philox_block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        random::philox_block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        random::philox_block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("RandomUniform float32 takes 24-bit uniforms from consecutive Philox blocks") {
  // Stream layout: key = seed, counter = {block index, seed2}; each block gives four floats
  // (top 24 bits * 2^-24), and a step's partial last block is not reused by the next step.
  const int64_t seed = 0x0000000100000005, seed2 = 9;
  auto block = [&](uint32_t i) { return random::philox4x32_10({i, 0, 9, 0}, {5, 1}); };
  auto as_float = [](uint32_t x) { return static_cast<float>(x >> 8) / 16777216.0f; };
  kernel_runner k("RandomUniform", dtype::float32, seed, seed2);

  auto first = k.step(dims64({2, 3}));
  REQUIRE(first.ok());
  const auto b0 = block(0), b1 = block(1);
  check_tensor(*first, {2, 3},
               std::vector<float>{as_float(b0[0]), as_float(b0[1]), as_float(b0[2]),
                                  as_float(b0[3]), as_float(b1[0]), as_float(b1[1])},
               0);
  auto second = k.step(dims32({4}));  // blocks 0 and 1 are spent: this step starts at 2
  REQUIRE(second.ok());
  const auto b2 = block(2);
  check_tensor(
      *second, {4},
      std::vector<float>{as_float(b2[0]), as_float(b2[1]), as_float(b2[2]), as_float(b2[3])}, 0);
}

TEST_CASE("RandomUniform float64 takes 53-bit uniforms, two per Philox block") {
  const auto b = random::philox4x32_10({0, 0, 9, 0}, {5, 0});
  auto as_double = [](uint32_t lo, uint32_t hi) {
    return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) / 9007199254740992.0;
  };
  auto out = run_kernel("RandomUniform", {dims64({2})}, seeded(dtype::float64, 5, 9));
  REQUIRE(out.ok());
  check_tensor(out->at(0), {2}, std::vector<double>{as_double(b[0], b[1]), as_double(b[2], b[3])},
               0);

  // Finer than float32's grid: most values are not multiples of 2^-24.
  auto many = run_kernel("RandomUniform", {dims64({1000})}, seeded(dtype::float64, 5, 9));
  REQUIRE(many.ok());
  int off_grid = 0;
  for (double v : as_doubles<double>(many->at(0)))
    off_grid += std::ldexp(v, 24) != std::floor(std::ldexp(v, 24));
  CHECK(off_grid > 990);
}

TEST_CASE("the same seeds give the same values from fresh kernels; other seeds do not") {
  for (const char* op : random_ops) {
    for (dtype type : {dtype::float32, dtype::float64}) {
      CAPTURE(op);
      CAPTURE(dtype_name(type));
      auto a = run_kernel(op, {dims32({3, 5})}, seeded(type, 3, 4));
      auto b = run_kernel(op, {dims32({3, 5})}, seeded(type, 3, 4));
      auto other_seed = run_kernel(op, {dims32({3, 5})}, seeded(type, 4, 4));
      auto other_seed2 = run_kernel(op, {dims32({3, 5})}, seeded(type, 3, 5));
      auto only_seed2 = run_kernel(op, {dims32({3, 5})}, seeded(type, 0, 4));
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      REQUIRE(other_seed.ok());
      REQUIRE(other_seed2.ok());
      REQUIRE(only_seed2.ok());
      CHECK(a->at(0) == b->at(0));
      CHECK_FALSE(a->at(0) == other_seed->at(0));
      CHECK_FALSE(a->at(0) == other_seed2->at(0));
      CHECK_FALSE(a->at(0) == only_seed2->at(0));
      // Seeds (0, 0): drawn from the system at kernel construction, so two kernels differ.
      auto x = run_kernel(op, {dims32({3, 5})}, seeded(type, 0, 0));
      auto y = run_kernel(op, {dims32({3, 5})}, seeded(type, 0, 0));
      REQUIRE(x.ok());
      REQUIRE(y.ok());
      CHECK_FALSE(x->at(0) == y->at(0));
    }
  }
}

TEST_CASE("a kernel continues its stream across steps, and a rebuilt kernel repeats it") {
  for (const char* op : random_ops) {
    CAPTURE(op);
    kernel_runner k(op, dtype::float32, 11, 12);
    auto s1 = k.step(dims64({7}));
    auto s2 = k.step(dims64({7}));
    REQUIRE(s1.ok());
    REQUIRE(s2.ok());
    CHECK_FALSE(*s1 == *s2);

    kernel_runner rebuilt(op, dtype::float32, 11, 12);
    auto r1 = rebuilt.step(dims64({7}));
    auto r2 = rebuilt.step(dims64({7}));
    REQUIRE(r1.ok());
    REQUIRE(r2.ok());
    CHECK(*r1 == *s1);
    CHECK(*r2 == *s2);
  }
}

TEST_CASE("values do not depend on the intra-op thread count") {
  // Large enough to be filled in parallel chunks on the four-thread device.
  for (const char* op : random_ops) {
    for (dtype type : {dtype::float32, dtype::float64}) {
      CAPTURE(op);
      CAPTURE(dtype_name(type));
      kernel_runner serial(op, type, 21, 22, device_with_threads(1));
      kernel_runner parallel(op, type, 21, 22, device_with_threads(4));
      for (int step = 0; step < 2; ++step) {
        auto a = serial.step(dims64({300, 333}));
        auto b = parallel.step(dims64({300, 333}));
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(*a == *b);
      }
    }
  }
}

TEST_CASE("concurrent steps of one kernel draw disjoint parts of its stream") {
  for (const char* op : random_ops) {
    CAPTURE(op);
    kernel_runner shared(op, dtype::float32, 31, 32);
    status_or<tensor> a = errors::internal("not run"), b = errors::internal("not run");
    std::thread t1([&] { a = shared.step(dims64({50'001})); });
    std::thread t2([&] { b = shared.step(dims64({50'001})); });
    t1.join();
    t2.join();
    REQUIRE(a.ok());
    REQUIRE(b.ok());

    kernel_runner sequential(op, dtype::float32, 31, 32);
    auto s1 = sequential.step(dims64({50'001}));
    auto s2 = sequential.step(dims64({50'001}));
    REQUIRE(s1.ok());
    REQUIRE(s2.ok());
    // Whichever step reserved its range first got the first half of the stream.
    const bool in_order = *a == *s1 && *b == *s2;
    const bool swapped = *a == *s2 && *b == *s1;
    CHECK((in_order || swapped));
  }
}

TEST_CASE("RandomUniform: mean 1/2 and variance 1/12 on [0, 1), float32 and float64") {
  // For U(0,1): Var(mean) = (1/12)/n; Var of the sample variance ~ (mu4 - sigma^4)/n
  // = (1/80 - 1/144)/n = (1/180)/n.
  const double n = stat_samples;
  for (dtype type : {dtype::float32, dtype::float64}) {
    CAPTURE(dtype_name(type));
    auto out = run_kernel("RandomUniform", {dims32({100, 1000})}, seeded(type, 41, 42));
    REQUIRE(out.ok());
    const auto xs =
        type == dtype::float32 ? as_doubles<float>(out->at(0)) : as_doubles<double>(out->at(0));
    const moments m = moments_of(xs);
    CHECK(m.min >= 0.0);
    CHECK(m.max < 1.0);
    CHECK(std::abs(m.mean - 0.5) < z_tol * std::sqrt(1.0 / 12 / n));
    CHECK(std::abs(m.variance - 1.0 / 12) < z_tol * std::sqrt(1.0 / 180 / n));
  }
}

TEST_CASE("RandomStandardNormal: mean 0, std 1, 68.27% within one std") {
  // Var(mean) = 1/n; the sample std has standard error ~ 1/sqrt(2n); the fraction within
  // one std is binomial with p = erf(1/sqrt 2) = 0.682689.
  const double n = stat_samples, p = 0.682689492;
  for (dtype type : {dtype::float32, dtype::float64}) {
    CAPTURE(dtype_name(type));
    auto out = run_kernel("RandomStandardNormal", {dims64({stat_samples})}, seeded(type, 51, 52));
    REQUIRE(out.ok());
    const auto xs =
        type == dtype::float32 ? as_doubles<float>(out->at(0)) : as_doubles<double>(out->at(0));
    const moments m = moments_of(xs);
    CHECK(std::abs(m.mean) < z_tol / std::sqrt(n));
    CHECK(std::abs(std::sqrt(m.variance) - 1.0) < z_tol / std::sqrt(2 * n));
    CHECK(std::abs(m.within_one - p) < z_tol * std::sqrt(p * (1 - p) / n));
    CHECK(m.max > 3.5);  // 100k normals reach beyond 3.5 sigma with probability 1 - 1e-10
    CHECK(m.min < -3.5);
  }
}

TEST_CASE("TruncatedNormal: every |x| < 2, std 0.8796, 71.5% within one") {
  // For N(0,1) cut at a = 2, with phi(2) = 0.0539910 and Z = P(|x| < 2) = 0.9544997:
  //   var = 1 - 2 a phi(a) / Z = 0.773741, std = 0.879626;
  //   E[x^4] = 3 - 2 a phi(a) (a^2 + 3) / Z = 1.416189, so the sample variance has standard
  //   error sqrt((1.416189 - 0.773741^2) / n) and the std that divided by 2 * 0.879626;
  //   P(|x| < 1) = 0.682689 / Z = 0.715233.
  const double n = stat_samples, var = 0.773741, sd = 0.879626, m4 = 1.416189, p = 0.715233;
  for (dtype type : {dtype::float32, dtype::float64}) {
    CAPTURE(dtype_name(type));
    auto out = run_kernel("TruncatedNormal", {dims32({10, 10, 1000})}, seeded(type, 61, 62));
    REQUIRE(out.ok());
    const auto xs =
        type == dtype::float32 ? as_doubles<float>(out->at(0)) : as_doubles<double>(out->at(0));
    const moments m = moments_of(xs);
    CHECK(m.max <= 2.0);
    CHECK(m.min >= -2.0);
    CHECK(m.max > 1.95);  // the tails up to the cut are populated
    CHECK(m.min < -1.95);
    CHECK(std::abs(m.mean) < z_tol * sd / std::sqrt(n));
    CHECK(std::abs(std::sqrt(m.variance) - sd) <
          z_tol * std::sqrt((m4 - var * var) / n) / (2 * sd));
    CHECK(std::abs(m.within_one - p) < z_tol * std::sqrt(p * (1 - p) / n));
  }
}

TEST_CASE("zero-size and scalar shapes") {
  for (const char* op : random_ops) {
    CAPTURE(op);
    auto empty = run_kernel(op, {dims64({0, 3})}, seeded(dtype::float32, 1, 2));
    REQUIRE(empty.ok());
    CHECK(empty->at(0).shape() == tensor_shape{0, 3});
    CHECK(empty->at(0).type() == dtype::float32);

    // An empty shape vector asks for a scalar.
    auto scalar = run_kernel(op, {dims32({})}, seeded(dtype::float64, 1, 2));
    REQUIRE(scalar.ok());
    CHECK(scalar->at(0).shape() == tensor_shape{});
    CHECK(std::isfinite(scalar->at(0).scalar_value<double>()));
  }
  auto u = run_kernel("RandomUniform", {dims32({})}, seeded(dtype::float32, 1, 2));
  REQUIRE(u.ok());
  const float v = u->at(0).scalar_value<float>();
  CHECK(v >= 0.0f);
  CHECK(v < 1.0f);
}

TEST_CASE("invalid shapes are rejected by the shape function and by the kernel") {
  for (const char* op : random_ops) {
    CAPTURE(op);
    // At graph construction (the fixture runs the shape function on the constant input).
    check_error(run_kernel(op, {dims64({2, -3})}, seeded(dtype::float32, 1, 2)),
                "shape dim 1 is -3; dims must be non-negative");
    check_error(run_kernel(op, {tensor::from_vector<int32_t>({1, 2, 3, 4}, {2, 2})},
                           seeded(dtype::float32, 1, 2)),
                "input 0 must have rank 1 but has shape [2,2]");
    check_error(run_kernel(op, {dims32({1, 1, 1, 1, 1, 1, 1, 1, 1})}, seeded(dtype::float32, 1, 2)),
                "shape has 9 dims, more than the maximum rank 8");
    check_error(run_kernel(op, {dims64({int64_t{1} << 40, int64_t{1} << 40})},
                           seeded(dtype::float32, 1, 2)),
                "more than 2^63 elements");

    // At run time, for shapes not known when the graph was built.
    kernel_runner k(op, dtype::float32, 1, 2);
    check_error(k.step(dims64({2, -3})), "shape dim 1 is -3; dims must be non-negative");
    check_error(k.step(dims32({4, 0, -1})), "shape dim 2 is -1; dims must be non-negative");
    check_error(k.step(tensor::from_vector<int32_t>({1, 2, 3, 4}, {2, 2})),
                "shape must be a vector of dims, got a tensor of shape [2,2]");
    check_error(k.step(tensor::scalar<int64_t>(3)),
                "shape must be a vector of dims, got a tensor of shape []");
    check_error(k.step(dims64({1, 1, 1, 1, 1, 1, 1, 1, 1})),
                "shape has 9 dims, more than the maximum rank 8");
    check_error(k.step(dims64({int64_t{1} << 40, int64_t{1} << 40})), "more than 2^63 elements");
    // Errors leave the kernel usable.
    auto ok = k.step(dims64({2}));
    REQUIRE(ok.ok());
    CHECK(ok->shape() == tensor_shape{2});

    check_error(run_kernel(op, {dims32({2})}, seeded(dtype::int32, 1, 2)),
                "attr 'dtype' is int32, not one of {float32, float64}");
  }
}

TEST_CASE("ops:: client functions build stateful nodes with inferred shapes") {
  auto root = scope::new_root();
  auto u = ops::random_uniform(root.with_op_name("u"), {2, 3}, dtype::float32, {.seed = 1});
  auto n = ops::random_standard_normal(root, std::vector<int64_t>{4}, dtype::float64,
                                       {.seed = 2, .seed2 = 3});
  auto dims = ops::placeholder(root, dtype::int32, {.shape = partial_shape{3}});
  auto t = ops::truncated_normal(root, dims, dtype::float32);
  auto any = ops::random_uniform(root, ops::placeholder(root, dtype::int64), dtype::float64);
  REQUIRE(root.ok());

  CHECK(u.node == "u");
  CHECK(u.type == dtype::float32);
  CHECK(root.shape_of(u) == partial_shape{2, 3});
  CHECK(n.type == dtype::float64);
  CHECK(root.shape_of(n) == partial_shape{4});
  CHECK(root.shape_of(t) == partial_shape{-1, -1, -1});
  CHECK_FALSE(root.shape_of(any).rank_known());

  const graph_def g = root.to_graph_def();
  auto node = std::find_if(g.nodes.begin(), g.nodes.end(),
                           [&](const node_def& d) { return d.name == n.node; });
  REQUIRE(node != g.nodes.end());
  CHECK(node->op == "RandomStandardNormal");
  CHECK(node->attrs.at("seed") == attr_value(int64_t{2}));
  CHECK(node->attrs.at("seed2") == attr_value(int64_t{3}));
  CHECK(node->attrs.at("T") == attr_value(dtype::int64));
  CHECK(node->attrs.at("dtype") == attr_value(dtype::float64));
  const op_def* def = op_registry::global().lookup("RandomStandardNormal");
  REQUIRE(def != nullptr);
  CHECK(def->is_stateful);
}

TEST_CASE("ops:: client functions report invalid shapes when the graph is built") {
  {
    auto root = scope::new_root();
    ops::truncated_normal(root.with_op_name("w"), {2, -1}, dtype::float32);
    check_error(root.get_status(), "shape dim 1 is -1; dims must be non-negative");
    check_error(root.get_status(), "'w'");
  }
  {
    auto root = scope::new_root();
    ops::random_uniform(root, ops::placeholder(root, dtype::int32, {.shape = partial_shape{9}}),
                        dtype::float32);
    check_error(root.get_status(), "shape has 9 dims, more than the maximum rank 8");
  }
  {
    auto root = scope::new_root();
    ops::random_uniform(root, ops::placeholder(root, dtype::int32, {.shape = partial_shape{2, 2}}),
                        dtype::float32);
    check_error(root.get_status(), "must have rank 1");
  }
  {
    auto root = scope::new_root();
    ops::random_standard_normal(root, {3}, dtype::int64);
    check_error(root.get_status(), "attr 'dtype' is int64, not one of {float32, float64}");
  }
}

TEST_CASE("through a session: steps continue the stream, a rebuilt graph repeats it") {
  auto build = [] {
    auto root = scope::new_root();
    auto dims = ops::placeholder(root.with_op_name("dims"), dtype::int32);
    auto w = ops::truncated_normal(root.with_op_name("w"), {2, 3}, dtype::float32,
                                   {.seed = 7, .seed2 = 8});
    auto u = ops::random_uniform(root.with_op_name("u"), dims, dtype::float64, {.seed = 7});
    return std::tuple{root, w, u, dims};
  };
  auto [root, w, u, dims] = build();
  session sess(root);
  auto first = sess.run({w});
  auto second = sess.run({w});
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->at(0).shape() == tensor_shape{2, 3});
  CHECK_FALSE(first->at(0) == second->at(0));

  auto [root2, w2, u2, dims2] = build();
  session again(root2);
  auto replay1 = again.run({w2});
  auto replay2 = again.run({w2});
  REQUIRE(replay1.ok());
  REQUIRE(replay2.ok());
  CHECK(replay1->at(0) == first->at(0));
  CHECK(replay2->at(0) == second->at(0));

  // A shape known only at run time.
  auto fed = sess.run({{dims, dims32({4, 1})}}, {u});
  REQUIRE(fed.ok());
  CHECK(fed->at(0).shape() == tensor_shape{4, 1});
  auto bad = sess.run({{dims, dims32({4, -2})}}, {u});
  check_error(bad, "shape dim 1 is -2; dims must be non-negative");
  check_error(bad, "'u'");
}

}  // namespace caflow
