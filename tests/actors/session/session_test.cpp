#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "actors/session/session.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/random_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/ir/shape_inference.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

// Test-only ops, registered in this executable alone.
namespace {

// Fails with a fixed message.
class fail_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { ctx.set_status(errors::invalid_argument("boom")); }
};

// Completes only when the step is cancelled: proves aborts wake waiting async kernels.
class wait_for_cancel_op final : public async_op_kernel {
 public:
  using async_op_kernel::async_op_kernel;
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto shared_done = std::make_shared<done_callback>(std::move(done));
    cancellation_manager::token t;
    kernel_context* c = &ctx;
    if (!ctx.step().cancellation->register_callback(&t, [c, shared_done] {
          c->set_status(errors::cancelled("woken by cancellation"));
          (*shared_done)();
        })) {
      ctx.set_status(errors::cancelled("already cancelled"));
      (*shared_done)();
    }
  }
};

// Finishes on another thread after a moment, holding no executor thread meanwhile.
class delayed_identity_op final : public async_op_kernel {
 public:
  using async_op_kernel::async_op_kernel;
  void compute_async(kernel_context& ctx, done_callback done) override {
    std::thread([&ctx, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ctx.set_output(0, ctx.input(0));
      done();
    }).detach();
  }
};

// Two instances meet at a barrier: succeeds only if both run at the same time.
std::atomic<int> barrier_arrivals{0};
class barrier_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    barrier_arrivals.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (barrier_arrivals.load() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    CAFLOW_OP_REQUIRES(ctx, barrier_arrivals.load() >= 2,
                       errors::deadline_exceeded("the other barrier node never ran concurrently"));
  }
};

}  // namespace

CAFLOW_REGISTER_OP("TestFail").input("x: float32").output("y: float32");
CAFLOW_REGISTER_OP("TestWaitForCancel").output("y: float32");
CAFLOW_REGISTER_OP("TestDelayedIdentity").input("x: T").output("y: T").attr("T: type")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("TestBarrier").input("x: float32").output("y: float32");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestFail").device(device_cpu), fail_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestWaitForCancel").device(device_cpu), wait_for_cancel_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestDelayedIdentity").device(device_cpu), delayed_identity_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestBarrier").device(device_cpu), barrier_op);

TEST_CASE("feeds, fetches and the zero-copy path through Identity") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto y = ops::identity(root.with_op_name("y"), x);
  session sess(root);
  tensor in = tensor::from_vector<float>({1.5f, -2.0f});
  auto out = sess.run({{x, in}}, {y, x});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  check_tensor(out->at(0), tensor_shape{2}, std::vector<float>{1.5f, -2.0f});
  CHECK(out->at(0).shares_buffer_with(in));
  CHECK(out->at(1).shares_buffer_with(in));
}

TEST_CASE("each run signature is prepared once and cached") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto c = ops::constant(root.with_op_name("c"), 3.0f);
  auto y = ops::identity(root.with_op_name("y"), x);
  session sess(root);
  for (int i = 0; i < 5; ++i) {
    auto out = sess.run({{x, tensor::scalar(float(i))}}, {y});
    REQUIRE(out.ok());
    CHECK(out->at(0).scalar_value<float>() == float(i));
  }
  CHECK(sess.stats().cached_signatures == 1);
  auto out = sess.run({c});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar_value<float>() == 3.0f);
  CHECK(sess.stats().cached_signatures == 2);
  CHECK(sess.stats().steps == 6);
}

TEST_CASE("a node added to the scope after the session exists is picked up") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  session sess(root);
  REQUIRE(sess.run({a}).ok());
  auto b = ops::identity(root.with_op_name("b"), a);
  auto out = sess.run({b});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar_value<float>() == 1.0f);
}

TEST_CASE("bad feeds and fetches are clear errors") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {-1, 3}});
  auto y = ops::identity(root.with_op_name("y"), x);
  session sess(root);
  check_error(sess.run({{x, tensor::scalar<int32_t>(1)}}, {y}), "feed 'x' expects float32[?,3] but got int32[]");
  check_error(sess.run({{x, tensor(dtype::float32, tensor_shape{2, 4})}}, {y}),
              "expects float32[?,3] but got float32[2,4]");
  check_error(sess.run_named({}, {"nope:0"}), "fetch 'nope:0': no node named 'nope'");
  check_error(sess.run_named({}, {"y:3"}), "has 1 outputs");
  check_error(sess.run_named({}, {}, {"ghost"}), "target 'ghost'");
  check_error(sess.run({y}), "you must feed a value for placeholder 'x'");
  auto ok = sess.run({{x, tensor(dtype::float32, tensor_shape{4, 3})}}, {y});
  REQUIRE(ok.ok());
  CHECK(ok->at(0).shape() == tensor_shape{4, 3});
}

TEST_CASE("malformed graphs are rejected before anything runs, naming the node") {
  const auto bad = [](std::vector<node_def> nodes) {
    session sess;
    return sess.extend(graph_def{graph_def::current_version, std::move(nodes)});
  };
  node_def c{"c", "Const", "", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", dtype::float32}}};
  check_error(bad({{"n", "NoSuchOp", "", {}, {}}}), "node 'n' (NoSuchOp): op 'NoSuchOp' is not registered");
  check_error(bad({{"c", "Const", "", {}, {{"dtype", dtype::float32}}}}), "attr 'value' is missing");
  check_error(bad({{"c", "Const", "", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", dtype::float32}, {"color", 3}}}}),
              "node 'c' (Const): unknown attr 'color'");
  check_error(bad({{"c", "Const", "", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", 3}}}}),
              "attr 'dtype' has type int, expected type");
  check_error(bad({c, {"i", "Identity", "", {"c", "c"}, {{"T", dtype::float32}}}}),
              "node 'i' (Identity): expects 1 inputs, got 2");
  check_error(bad({c, {"i", "Identity", "", {"c"}, {{"T", dtype::int32}}}}),
              "node 'i' (Identity): input 0 ('c') is float32, expected int32");
  check_error(bad({c, {"i", "Identity", "", {"missing"}, {{"T", dtype::float32}}}}),
              "input 'missing' names no node");
  check_error(bad({c, {"i", "Identity", "", {"c:1"}, {{"T", dtype::float32}}}}), "asks for output 1");
  check_error(bad({{"a", "Identity", "", {"b"}, {{"T", dtype::float32}}},
                   {"b", "Identity", "", {"a"}, {{"T", dtype::float32}}}}),
              "cycle");
  check_error(bad({c, c}), "duplicate node name 'c'");
  check_error(bad({c, {"i", "Identity", "", {"^c", "c"}, {{"T", dtype::float32}}}}), "follows a control input");
  check_error(bad({{"p", "PlaceholderWithDefault", "", {"c"}, {{"dtype", dtype::float32}, {"shape", partial_shape{2}}}}, c}),
              "does not match the declared shape");
}

TEST_CASE("a failed graph edit leaves the session's graph intact") {
  session sess;
  node_def c{"c", "Const", "", {}, {{"value", tensor::scalar(7.0f)}, {"dtype", dtype::float32}}};
  REQUIRE(sess.extend(graph_def{1, {c}}).ok());
  CHECK_FALSE(sess.extend(graph_def{1, {{"x", "Nope", "", {}, {}}}}).ok());
  auto out = sess.run_named({}, {"c"});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar_value<float>() == 7.0f);
}

TEST_CASE("errors while building keep the scope's first error and surface on run") {
  auto root = scope::new_root();
  auto a = ops::constant(root.with_op_name("a"), 1.0f);
  auto bad = node_builder(root.with_op_name("bad"), "Identity").input(a).attr("T", dtype::int32).finalize();
  CHECK_FALSE(bad.valid());
  CHECK_FALSE(root.ok());
  session sess(root);
  check_error(sess.run({a}), "node 'bad' (Identity): input 0 ('a') is float32, expected int32");
}

TEST_CASE("variables keep state across runs") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), partial_shape{2}, dtype::float32);
  auto init = ops::assign(root.with_op_name("init"), v, ops::constant(root, std::vector<float>{1, 2}, {2}));
  auto inc = ops::assign_add(root.with_op_name("inc"), v, ops::constant(root, std::vector<float>{10, 20}, {2}));
  auto read = ops::identity(root.with_op_name("read"), v);
  auto is_init = ops::is_variable_initialized(root.with_op_name("is_init"), v);
  session sess(root);

  auto before = sess.run({is_init});
  REQUIRE(before.ok());
  CHECK(before->at(0).scalar_value<bool>() == false);
  check_error(sess.run({read}), "reads uninitialized variable 'v'");

  REQUIRE(sess.run({init}).ok());
  auto held = sess.run({read});  // a reader's snapshot must not change under later updates
  REQUIRE(held.ok());
  REQUIRE(sess.run_targets({{inc.node, {}}}).ok());
  REQUIRE(sess.run_targets({{inc.node, {}}}).ok());
  auto after = sess.run({read, is_init});
  REQUIRE(after.ok());
  check_tensor(after->at(0), tensor_shape{2}, std::vector<float>{21, 42});
  CHECK(after->at(1).scalar_value<bool>() == true);
  check_tensor(held->at(0), tensor_shape{2}, std::vector<float>{1, 2});
  // Updating in place must not have touched the Const the variable was initialized from.
  auto again = sess.run({init});
  REQUIRE(again.ok());
  check_tensor(sess.run({read})->at(0), tensor_shape{2}, std::vector<float>{1, 2});
}

TEST_CASE("assigning a value of the wrong shape names the variable") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), partial_shape{2}, dtype::float32);
  auto p = ops::placeholder(root.with_op_name("p"), dtype::float32);
  auto a = ops::assign(root.with_op_name("a"), v, p);
  session sess(root);
  check_error(sess.run({{p, tensor::from_vector<float>({1, 2, 3})}}, {a}),
              "cannot assign a value of shape [3] to variable 'v' of shape [2]");
}

TEST_CASE("a kernel error aborts the step, wakes waiting kernels, and names the node") {
  auto root = scope::new_root();
  auto c = ops::constant(root.with_op_name("c"), 1.0f);
  auto f = node_builder(root.with_op_name("failing"), "TestFail").input(c).finalize();
  auto w = node_builder(root.with_op_name("waiter"), "TestWaitForCancel").finalize();
  session sess(root);
  auto out = sess.run({f.out(), w.out()});
  check_error(out, "node 'failing' (TestFail) on /job:localhost/replica:0/task:0/device:CPU:0: boom");
  // The session is still usable.
  auto ok = sess.run({c});
  REQUIRE(ok.ok());
}

TEST_CASE("a step that cannot finish is cancelled at the operation timeout") {
  auto root = scope::new_root();
  auto w = node_builder(root.with_op_name("waiter"), "TestWaitForCancel").finalize();
  session sess(root, {.operation_timeout = std::chrono::milliseconds(100)});
  check_error(sess.run({w.out()}), "did not finish within 100 ms");
}

TEST_CASE("asynchronous kernels complete steps from other threads") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto d1 = node_builder(root.with_op_name("d1"), "TestDelayedIdentity").input(x).finalize();
  auto d2 = node_builder(root.with_op_name("d2"), "TestDelayedIdentity").input(d1.out()).finalize();
  session sess(root);
  for (int i = 0; i < 3; ++i) {
    auto out = sess.run({{x, tensor::scalar(float(i))}}, {d2.out(), d1.out()});
    REQUIRE(out.ok());
    CHECK(out->at(0).scalar_value<float>() == float(i));
    CHECK(out->at(1).scalar_value<float>() == float(i));
  }
}

TEST_CASE("independent expensive nodes run in parallel") {
  auto root = scope::new_root();
  auto c = ops::constant(root.with_op_name("c"), 1.0f);
  auto b1 = node_builder(root.with_op_name("b1"), "TestBarrier").input(c).finalize();
  auto b2 = node_builder(root.with_op_name("b2"), "TestBarrier").input(c).finalize();
  session sess(root, {.cpu = {.intra_op_threads = 1, .inter_op_threads = 2}});
  barrier_arrivals = 0;
  auto out = sess.run({b1.out(), b2.out()});
  REQUIRE(out.ok());
}

TEST_CASE("control dependencies order side effects") {
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), partial_shape(tensor_shape{}), dtype::int32);
  auto init = ops::assign(root.with_op_name("init"), v, ops::constant(root, int32_t{5}));
  auto after = root.with_control_dependencies(std::vector<output>{init});
  auto read = ops::identity(after.with_op_name("read"), v);
  session sess(root);
  auto out = sess.run({read});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar_value<int32_t>() == 5);
}

TEST_CASE("stateful kernels are shared by every run signature of a session") {
  auto root = scope::new_root();
  auto r = ops::random_uniform(root.with_op_name("r"), std::vector<int64_t>{4}, dtype::float32,
                               {.seed = 7, .seed2 = 3});
  auto copy = ops::identity(root.with_op_name("copy"), r);
  session sess(root);
  auto first = sess.run({r});
  auto second = sess.run({copy});  // another signature, same node 'r': the stream continues
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK_FALSE(first->at(0).equals(second->at(0)));
  session fresh(root);
  auto replay = fresh.run({copy});
  REQUIRE(replay.ok());
  CHECK(replay->at(0).equals(first->at(0)));
}

TEST_CASE("the optimizer folds constants and merges duplicates, reports it, and can be switched off") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto five = ops::add(root.with_op_name("five"), ops::constant(root, 2.0f), ops::constant(root, 3.0f));
  auto a1 = ops::mul(root.with_op_name("a1"), x, five);
  auto a2 = ops::mul(root.with_op_name("a2"), x, five);  // the same value as a1
  auto y = ops::add(root.with_op_name("y"), a1, a2);
  session on(root);
  auto out = on.run({{x, tensor::scalar(1.5f)}}, {y});
  REQUIRE(out.ok());
  CHECK(out->at(0).scalar_value<float>() == 15.0f);
  const session_stats st = on.stats();
  CHECK(st.nodes_folded == 1);    // 'five' became a Const
  CHECK(st.nodes_removed >= 3);   // a2 merged into a1; the two Consts feeding 'five' are gone
  CHECK(st.last_optimization.find("cse") != std::string::npos);

  session off(root, {.optimizer = {.cse = false, .constant_folding = false}});
  auto same = off.run({{x, tensor::scalar(1.5f)}}, {y});
  REQUIRE(same.ok());
  CHECK(same->at(0).scalar_value<float>() == 15.0f);
  CHECK(off.stats().nodes_removed == 0);
  CHECK(off.stats().nodes_folded == 0);
}

TEST_CASE("a traced local step reports each node it ran, with its op and device") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::mul(root.with_op_name("y"), x, ops::constant(root.with_op_name("two"), 2.0f));
  REQUIRE(root.ok());
  session sess(root);
  step_metadata md;
  auto out = sess.run(step_options{.trace = true}, {{x, tensor::scalar(3.0f)}}, {y}, {}, &md);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == 6.0f);
  bool saw_mul = false;
  for (const trace_event& e : md.nodes) {
    if (e.node != "y") continue;
    saw_mul = true;
    CHECK(e.op == "Mul");
    CHECK(e.device.find("CPU:0") != std::string::npos);
    CHECK(e.dur_us >= 0);
  }
  CHECK(saw_mul);
  auto plain = sess.run(step_options{}, {{x, tensor::scalar(1.0f)}}, {y}, {}, &md);
  REQUIRE(plain.ok());
  CHECK(md.nodes.empty());
}
