#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "devices/cpu_device.hpp"
#include "graph/ir/partition.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

// What a recv callback saw.
struct received {
  int calls = 0;
  status st;
  tensor value;
};

rendezvous::recv_callback into(received& r) {
  return [&r](const status& st, const tensor& v) {
    ++r.calls;
    r.st = st;
    r.value = v;
  };
}

void check_status(const status& st, error_code code, const std::string& text) {
  CHECK(st.code() == code);
  CHECK_MESSAGE(st.message().find(text) != std::string::npos, "'", st.message(), "' lacks '", text,
                "'");
}

}  // namespace

TEST_CASE("a recv asked before the send completes when the value arrives, sharing its bytes") {
  local_rendezvous rdv;
  received r;
  rdv.recv_async("k", 1, into(r));
  CHECK(r.calls == 0);
  tensor sent = tensor::from_vector<float>({1.5f, -2.0f});
  REQUIRE(rdv.send("k", 1, sent).ok());
  REQUIRE(r.calls == 1);
  REQUIRE(r.st.ok());
  check_tensor(r.value, tensor_shape{2}, std::vector<float>{1.5f, -2.0f});
  CHECK(r.value.shares_buffer_with(sent));
}

TEST_CASE("a send before its recv keeps the value until it is taken, then lets go of it") {
  local_rendezvous rdv;
  tensor sent = tensor::from_vector<int32_t>({7, 8, 9});
  REQUIRE(rdv.send("k", 3, sent).ok());
  received r;
  rdv.recv_async("k", 3, into(r));  // the value is there: runs inline
  REQUIRE(r.calls == 1);
  REQUIRE(r.st.ok());
  check_tensor(r.value, tensor_shape{3}, std::vector<int32_t>{7, 8, 9});
  CHECK(r.value.shares_buffer_with(sent));
  sent = tensor{};
  CHECK(r.value.buffer_unique());  // the rendezvous kept no handle after the hand-over
}

TEST_CASE("many keys in one step each meet their own value, in any order") {
  local_rendezvous rdv;
  constexpr int n = 64;
  std::vector<received> r(n);
  for (int i = 0; i < n; i += 2) rdv.recv_async("edge_" + std::to_string(i), 5, into(r[i]));
  for (int i = n - 1; i >= 0; --i)
    REQUIRE(rdv.send("edge_" + std::to_string(i), 5, tensor::scalar<int64_t>(100 + i)).ok());
  for (int i = 1; i < n; i += 2) rdv.recv_async("edge_" + std::to_string(i), 5, into(r[i]));
  for (int i = 0; i < n; ++i) {
    REQUIRE(r[i].calls == 1);
    REQUIRE(r[i].st.ok());
    CHECK(r[i].value.scalar_value<int64_t>() == 100 + i);
  }
}

TEST_CASE("the same key in different steps never mixes values") {
  local_rendezvous rdv;
  received r1, r2, r3;
  rdv.recv_async("k", 2, into(r2));
  REQUIRE(rdv.send("k", 1, tensor::scalar(1.0f)).ok());
  CHECK(r2.calls == 0);
  REQUIRE(rdv.send("k", 2, tensor::scalar(2.0f)).ok());
  rdv.recv_async("k", 1, into(r1));
  rdv.recv_async("k", 3, into(r3));
  REQUIRE(r1.calls == 1);
  REQUIRE(r2.calls == 1);
  CHECK(r1.value.scalar_value<float>() == 1.0f);
  CHECK(r2.value.scalar_value<float>() == 2.0f);
  CHECK(r3.calls == 0);
  rdv.abort_step(3, errors::aborted("done with step 3"));
  CHECK(r3.calls == 1);
}

TEST_CASE("a key sent or received twice in one step is an error, before or after the match") {
  local_rendezvous rdv;
  REQUIRE(rdv.send("k", 7, tensor::scalar(1.0f)).ok());
  check_status(rdv.send("k", 7, tensor::scalar(2.0f)), error_code::already_exists,
               "'k' was already sent in step 7");
  received first, second;
  rdv.recv_async("k", 7, into(first));
  REQUIRE(first.st.ok());
  CHECK(first.value.scalar_value<float>() == 1.0f);  // the duplicate did not replace it
  rdv.recv_async("k", 7, into(second));
  REQUIRE(second.calls == 1);
  check_status(second.st, error_code::already_exists, "'k' was already received in step 7");
  check_status(rdv.send("k", 7, tensor::scalar(3.0f)), error_code::already_exists, "already sent");

  received waiting, duplicate;
  rdv.recv_async("w", 7, into(waiting));
  rdv.recv_async("w", 7, into(duplicate));
  REQUIRE(duplicate.calls == 1);
  check_status(duplicate.st, error_code::already_exists, "'w' was already received in step 7");
  CHECK(waiting.calls == 0);  // the first recv still waits for its value
  REQUIRE(rdv.send("w", 7, tensor::scalar(4.0f)).ok());
  REQUIRE(waiting.calls == 1);
  CHECK(waiting.value.scalar_value<float>() == 4.0f);
}

TEST_CASE("abort wakes the step's pending recvs with its error and refuses later ones") {
  local_rendezvous rdv;
  received a, b, other_step;
  rdv.recv_async("a", 3, into(a));
  rdv.recv_async("b", 3, into(b));
  rdv.recv_async("a", 4, into(other_step));
  tensor unreceived = tensor::from_vector<float>({1, 2});
  REQUIRE(rdv.send("c", 3, unreceived).ok());

  rdv.abort_step(3, errors::unavailable("task 1 is gone"));
  REQUIRE(a.calls == 1);
  REQUIRE(b.calls == 1);
  check_status(a.st, error_code::unavailable, "task 1 is gone");
  check_status(b.st, error_code::unavailable, "task 1 is gone");
  CHECK_FALSE(a.value.initialized());
  CHECK(other_step.calls == 0);
  CHECK(unreceived.buffer_unique());  // the value nobody received was dropped

  check_status(rdv.send("a", 3, tensor::scalar(1.0f)), error_code::unavailable, "task 1 is gone");
  received late;
  rdv.recv_async("c", 3, into(late));
  REQUIRE(late.calls == 1);
  check_status(late.st, error_code::unavailable, "task 1 is gone");

  // The first abort wins.
  rdv.abort_step(3, errors::cancelled("second thoughts"));
  received later;
  rdv.recv_async("d", 3, into(later));
  check_status(later.st, error_code::unavailable, "task 1 is gone");

  // Step 4 still works.
  REQUIRE(rdv.send("a", 4, tensor::scalar(4.0f)).ok());
  REQUIRE(other_step.calls == 1);
  REQUIRE(other_step.st.ok());
  CHECK(other_step.value.scalar_value<float>() == 4.0f);
}

TEST_CASE("an abort before any send or recv of the step still refuses them") {
  local_rendezvous rdv;
  rdv.abort_step(9, errors::aborted("peer failed first"));
  check_status(rdv.send("k", 9, tensor::scalar(1)), error_code::aborted, "peer failed first");
  received r;
  rdv.recv_async("k", 9, into(r));
  check_status(r.st, error_code::aborted, "peer failed first");
}

TEST_CASE("an abort with an OK status still gives pending recvs an error") {
  local_rendezvous rdv;
  received r;
  rdv.recv_async("k", 2, into(r));
  rdv.abort_step(2, status{});
  REQUIRE(r.calls == 1);
  check_status(r.st, error_code::internal, "step 2 was aborted with no error");
}

TEST_CASE("cleanup forgets a step: leftovers are freed and the step id can be used again") {
  local_rendezvous rdv;
  tensor left = tensor::from_vector<float>({3, 4});
  REQUIRE(rdv.send("left", 1, left).ok());
  received matched;
  rdv.recv_async("m", 1, into(matched));
  REQUIRE(rdv.send("m", 1, tensor::scalar(1.0f)).ok());
  rdv.abort_step(2, errors::aborted("x"));
  CHECK(rdv.num_live_steps() == 2);

  rdv.cleanup_step(1);
  rdv.cleanup_step(2);
  rdv.cleanup_step(99);  // nothing there: no effect
  CHECK(rdv.num_live_steps() == 0);
  CHECK(left.buffer_unique());

  // Both the matched key and the abort are forgotten.
  REQUIRE(rdv.send("m", 1, tensor::scalar(2.0f)).ok());
  REQUIRE(rdv.send("k", 2, tensor::scalar(3.0f)).ok());
  CHECK(rdv.num_live_steps() == 2);
}

TEST_CASE("cleanup and destruction wake recvs still pending, naming the key") {
  received cleaned, destroyed;
  {
    local_rendezvous rdv;
    rdv.recv_async("edge_x", 5, into(cleaned));
    rdv.recv_async("edge_y", 6, into(destroyed));
    rdv.cleanup_step(5);
    REQUIRE(cleaned.calls == 1);
    check_status(cleaned.st, error_code::cancelled,
                 "step 5 was cleaned up while a recv of 'edge_x' waited");
    CHECK(destroyed.calls == 0);
  }
  REQUIRE(destroyed.calls == 1);
  check_status(destroyed.st, error_code::cancelled, "recv of 'edge_y' in step 6");
}

TEST_CASE(
    "callbacks run outside the lock: a recv callback may send and abort on the same rendezvous") {
  local_rendezvous rdv;
  received last;
  rdv.recv_async("second", 1, into(last));
  rdv.recv_async("first", 1, [&rdv](const status& st, const tensor& v) {
    REQUIRE(st.ok());
    REQUIRE(rdv.send("second", 1, v).ok());  // forwards the value
  });
  received aborted;
  rdv.recv_async("x", 2, [&rdv, &aborted](const status& st, const tensor& v) {
    into(aborted)(st, v);
    rdv.abort_step(2, errors::internal("again"));  // re-entering abort is a no-op
    rdv.cleanup_step(2);
  });
  tensor t = tensor::scalar(42.0f);
  REQUIRE(rdv.send("first", 1, t).ok());
  REQUIRE(last.calls == 1);
  CHECK(last.value.shares_buffer_with(t));
  rdv.abort_step(2, errors::aborted("stop"));
  check_status(aborted.st, error_code::aborted, "stop");
  CHECK(rdv.num_live_steps() == 1);
}

TEST_CASE("senders and receivers on many threads each get exactly their value") {
  local_rendezvous rdv;
  constexpr int steps = 8, keys = 500;
  std::vector<std::atomic<int>> sums(steps);
  std::atomic<int> calls{0}, errors_seen{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < steps; ++s) {
    threads.emplace_back([&, s] {
      for (int k = 0; k < keys; ++k)
        if (!rdv.send("k" + std::to_string(k), s, tensor::scalar<int32_t>(k)).ok()) ++errors_seen;
    });
    threads.emplace_back([&, s] {
      for (int k = keys - 1; k >= 0; --k)
        rdv.recv_async("k" + std::to_string(k), s, [&, s, k](const status& st, const tensor& v) {
          if (!st.ok() || v.scalar_value<int32_t>() != k) ++errors_seen;
          sums[s] += v.scalar_value<int32_t>();
          ++calls;
        });
    });
  }
  for (auto& t : threads) t.join();
  CHECK(errors_seen.load() == 0);
  CHECK(calls.load() == steps * keys);
  for (int s = 0; s < steps; ++s) CHECK(sums[s].load() == keys * (keys - 1) / 2);
  for (int s = 0; s < steps; ++s) rdv.cleanup_step(s);
  CHECK(rdv.num_live_steps() == 0);
}

// ---- The kernels, built the way an executor builds them, with a rendezvous in the step.
namespace {

const std::string dev_a = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string dev_b = "/job:worker/replica:0/task:1/device:CPU:0";

cpu_device& test_device() {
  static cpu_device dev(dev_b, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 1});
  return dev;
}

node_def edge_node(const std::string& op, dtype type, int64_t incarnation = 255) {
  node_def n{"n", op, "", {}, {}};
  n.attrs[op == "_Send" ? "T" : "tensor_type"] = type;
  n.attrs["tensor_name"] = std::string("x:0");
  n.attrs["send_device"] = dev_a;
  n.attrs["send_device_incarnation"] = incarnation;
  n.attrs["recv_device"] = dev_b;
  return n;
}

struct built_kernel {
  node_def def;
  node_signature sig;
  std::unique_ptr<op_kernel> kernel;
};

built_kernel build(node_def n) {
  auto op = op_registry::global().find(n.op);
  REQUIRE(op.ok());
  add_default_attrs(**op, n);
  auto sig = resolve_signature(**op, n);
  REQUIRE(sig.ok());
  auto k = kernel_registry::global().create(n, *sig, test_device());
  REQUIRE_MESSAGE(k.ok(), k.get_status().to_string());
  return {n, *sig, std::move(k).value()};
}

status run_send(op_kernel& k, step_context step, const tensor& value) {
  kernel_value in;
  in.value = value;
  kernel_context ctx(k, test_device(), step, &in, nullptr);
  k.compute(ctx);
  return ctx.get_status();
}

// Starts a _Recv; `finished` is set once `done` ran. The context lives in the struct.
struct recv_call {
  recv_call(op_kernel& k, step_context s) : step(s), ctx(k, test_device(), step, nullptr, &out) {
    static_cast<async_op_kernel&>(k).compute_async(ctx, [this] { finished.set_value(); });
  }
  bool done_within(std::chrono::milliseconds d) {
    return f.wait_for(d) == std::future_status::ready;
  }
  step_context step;
  kernel_value out;
  std::promise<void> finished;
  std::future<void> f = finished.get_future();
  kernel_context ctx;
};

}  // namespace

TEST_CASE("_Send posts under TensorFlow's key layout and _Recv takes it, zero-copy") {
  local_rendezvous rdv;
  auto send = build(edge_node("_Send", dtype::float32));
  auto recv = build(edge_node("_Recv", dtype::float32));
  // Worked out by hand from the attrs: incarnation 255 is 00000000000000ff.
  const std::string key =
      "/job:worker/replica:0/task:0/device:CPU:0;00000000000000ff;"
      "/job:worker/replica:0/task:1/device:CPU:0;x:0;0:0";
  CHECK(rendezvous_key(send.def) == key);

  tensor t = tensor::from_vector<float>({1, 2, 3}, {3});
  REQUIRE(run_send(*send.kernel, {.step_id = 5, .rdv = &rdv}, t).ok());
  received direct;
  rdv.recv_async(key, 5, into(direct));
  REQUIRE(direct.calls == 1);
  CHECK(direct.value.shares_buffer_with(t));

  cancellation_manager cm;
  recv_call call(*recv.kernel, {.step_id = 6, .cancellation = &cm, .rdv = &rdv});
  CHECK_FALSE(call.done_within(std::chrono::milliseconds(0)));
  REQUIRE(rdv.send(key, 6, t).ok());
  REQUIRE(call.done_within(std::chrono::seconds(5)));
  REQUIRE(call.ctx.ok());
  check_tensor(call.out.value, tensor_shape{3}, std::vector<float>{1, 2, 3});
  CHECK(call.out.value.shares_buffer_with(t));
  // Once its value came, the recv no longer aborts the step when the step is cancelled.
  cm.cancel();
  CHECK(rdv.send("another edge", 6, t).ok());
}

TEST_CASE("an incarnation with the top bit set keeps all 16 hex digits") {
  const node_def n = edge_node("_Send", dtype::int32, static_cast<int64_t>(0xfedcba9876543210ULL));
  CHECK(rendezvous_key(n) == dev_a + ";fedcba9876543210;" + dev_b + ";x:0;0:0");
}

TEST_CASE("_Send and _Recv move any dtype") {
  local_rendezvous rdv;
  for (dtype t : {dtype::float64, dtype::int64, dtype::boolean, dtype::uint8}) {
    CAPTURE(dtype_name(t));
    auto send = build(edge_node("_Send", t));
    auto recv = build(edge_node("_Recv", t));
    tensor v(t, tensor_shape{2, 0});  // zero elements travel like any other
    const int64_t step = static_cast<int64_t>(t);
    REQUIRE(run_send(*send.kernel, {.step_id = step, .rdv = &rdv}, v).ok());
    cancellation_manager cm;
    recv_call call(*recv.kernel, {.step_id = step, .cancellation = &cm, .rdv = &rdv});
    REQUIRE(call.done_within(std::chrono::seconds(5)));
    REQUIRE(call.ctx.ok());
    CHECK(call.out.value.type() == t);
    CHECK(call.out.value.shape() == tensor_shape{2, 0});
  }
}

TEST_CASE("_Recv reports a value of the wrong dtype naming the edge and the sender") {
  local_rendezvous rdv;
  auto send = build(edge_node("_Send", dtype::int32));
  auto recv = build(edge_node("_Recv", dtype::float32));
  REQUIRE(run_send(*send.kernel, {.step_id = 1, .rdv = &rdv}, tensor::from_vector<int32_t>({1, 2}))
              .ok());
  cancellation_manager cm;
  recv_call call(*recv.kernel, {.step_id = 1, .cancellation = &cm, .rdv = &rdv});
  REQUIRE(call.done_within(std::chrono::seconds(5)));
  check_status(call.ctx.get_status(), error_code::invalid_argument,
               "edge 'x:0' from /job:worker/replica:0/task:0/device:CPU:0 delivered int32[2], "
               "expected float32");
}

TEST_CASE("a cancelled step wakes its pending _Recv and aborts the step in the rendezvous") {
  local_rendezvous rdv;
  auto recv = build(edge_node("_Recv", dtype::float32));
  cancellation_manager cm;
  recv_call call(*recv.kernel, {.step_id = 4, .cancellation = &cm, .rdv = &rdv});
  CHECK_FALSE(call.done_within(std::chrono::milliseconds(20)));
  cm.cancel();
  REQUIRE(call.done_within(std::chrono::seconds(5)));
  check_status(call.ctx.get_status(), error_code::cancelled, "step 4 was cancelled");
  check_status(rdv.send(rendezvous_key(recv.def), 4, tensor::scalar(1.0f)), error_code::cancelled,
               "step 4 was cancelled");

  // A recv that starts after the cancellation fails at once.
  recv_call late(*recv.kernel, {.step_id = 8, .cancellation = &cm, .rdv = &rdv});
  REQUIRE(late.done_within(std::chrono::seconds(5)));
  check_status(late.ctx.get_status(), error_code::cancelled, "step 8 was cancelled");
}

TEST_CASE("a step without a rendezvous is an internal error, not a crash") {
  auto send = build(edge_node("_Send", dtype::float32));
  auto recv = build(edge_node("_Recv", dtype::float32));
  check_status(run_send(*send.kernel, {.step_id = 1}, tensor::scalar(1.0f)), error_code::internal,
               "the step has no rendezvous to send '" + rendezvous_key(send.def) + "'");
  cancellation_manager cm;
  recv_call call(*recv.kernel, {.step_id = 1, .cancellation = &cm});
  REQUIRE(call.done_within(std::chrono::seconds(5)));
  check_status(call.ctx.get_status(), error_code::internal,
               "the step has no rendezvous to receive");
}
