// FIFOQueueV2 and its ops through sessions. Blocking behaviour is tested with session.run
// calls on std::threads: a call that must wait is seen still running after a pause, then
// seen finishing (within a bounded wait) once another call serves it.
#include <doctest/doctest.h>

#include <chrono>
#include <future>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "kernels/resources/fifo_queue.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

using run_result = status_or<std::vector<tensor>>;

// A safety net: no test can hang on a queue for longer than this.
const session_options bounded{.operation_timeout = 20s};

std::vector<tensor> run_ok(session& sess, const session::feed_list& feeds,
                           const std::vector<output>& fetches,
                           const std::vector<operation>& targets = {}) {
  auto out = sess.run(feeds, fetches, targets);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

std::future<run_result> run_in_thread(session& sess, session::feed_list feeds,
                                      std::vector<output> fetches,
                                      std::vector<operation> targets = {}) {
  return std::async(std::launch::async, [&sess, feeds = std::move(feeds),
                                         fetches = std::move(fetches),
                                         targets = std::move(targets)] {
    return sess.run(feeds, fetches, targets);
  });
}

// Still running after a pause long enough for any call that could finish to finish.
template <class T>
bool still_waiting(std::future<T>& f) {
  return f.wait_for(150ms) == std::future_status::timeout;
}

template <class T>
T finish(std::future<T>& f) {
  REQUIRE_MESSAGE(f.wait_for(10s) == std::future_status::ready, "the waiting call never finished");
  return f.get();
}

int32_t size_of(session& sess, const output& size) {
  return run_ok(sess, {}, {size}).at(0).scalar_value<int32_t>();
}

// A (float32, int32) queue with placeholders feeding one element and a dequeue of one.
struct pair_queue {
  output handle, x, y, size;
  operation enqueue;
  std::vector<output> dequeue;

  pair_queue(const scope& root, const std::string& name, const ops::fifo_queue_attrs& attrs = {}) {
    handle = ops::fifo_queue(root.with_op_name(name), {dtype::float32, dtype::int32}, attrs);
    x = ops::placeholder(root.with_op_name(name + "/x"), dtype::float32);
    y = ops::placeholder(root.with_op_name(name + "/y"), dtype::int32);
    enqueue = ops::queue_enqueue(root.with_op_name(name + "/enqueue"), handle, {x, y});
    dequeue = ops::queue_dequeue(root.with_op_name(name + "/dequeue"), handle,
                                 {dtype::float32, dtype::int32});
    size = ops::queue_size(root.with_op_name(name + "/size"), handle);
  }
  session::feed_list feed(float a, int32_t b) const {
    return {{x, tensor::scalar(a)}, {y, tensor::scalar(b)}};
  }
};

void check_pair(const std::vector<tensor>& got, float a, int32_t b) {
  REQUIRE(got.size() == 2);
  check_tensor(got[0], tensor_shape{}, std::vector<float>{a});
  check_tensor(got[1], tensor_shape{}, std::vector<int32_t>{b});
}

}  // namespace

TEST_CASE("FIFOQueueV2: elements come out in the order they went in, tuples intact") {
  auto root = scope::new_root();
  pair_queue q(root, "q");
  REQUIRE(root.ok());
  session sess(root, bounded);
  CHECK(size_of(sess, q.size) == 0);
  for (int i = 0; i < 3; ++i) run_ok(sess, q.feed(0.5f + float(i), 10 * i), {}, {q.enqueue});
  CHECK(size_of(sess, q.size) == 3);
  check_pair(run_ok(sess, {}, q.dequeue), 0.5f, 0);
  check_pair(run_ok(sess, {}, q.dequeue), 1.5f, 10);
  check_pair(run_ok(sess, {}, q.dequeue), 2.5f, 20);
  CHECK(size_of(sess, q.size) == 0);
}

TEST_CASE("a dequeue on an empty queue waits, holding no device thread, until a later enqueue") {
  auto root = scope::new_root();
  pair_queue q(root, "q");
  auto xs = ops::placeholder(root.with_op_name("xs"), dtype::float32);
  auto ys = ops::placeholder(root.with_op_name("ys"), dtype::int32);
  auto enqueue_many = ops::queue_enqueue_many(root, q.handle, {xs, ys});
  // One inter-op thread for three waiting dequeues: they cannot be holding it.
  session sess(root, {.cpu = {.intra_op_threads = 1, .inter_op_threads = 1},
                      .operation_timeout = 20s});
  std::vector<std::future<run_result>> waiting;
  for (int i = 0; i < 3; ++i) waiting.push_back(run_in_thread(sess, {}, q.dequeue));
  for (auto& w : waiting) CHECK(still_waiting(w));
  run_ok(sess,
         {{xs, tensor::from_vector<float>({1, 2, 3})}, {ys, tensor::from_vector<int32_t>({4, 5, 6})}},
         {}, {enqueue_many});
  // Which waiting call got which element depends on the threads' arrival; all three are served.
  std::vector<float> got;
  for (auto& w : waiting) {
    auto r = finish(w);
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    got.push_back(r->at(0).scalar_value<float>());
    CHECK(r->at(1).scalar_value<int32_t>() == static_cast<int32_t>(r->at(0).scalar_value<float>()) + 3);
  }
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<float>{1, 2, 3});
  CHECK(size_of(sess, q.size) == 0);
}

TEST_CASE("capacity: an enqueue on a full queue waits until a dequeue makes room") {
  auto root = scope::new_root();
  pair_queue q(root, "q", {.capacity = 2});
  session sess(root, bounded);
  run_ok(sess, q.feed(1, 1), {}, {q.enqueue});
  run_ok(sess, q.feed(2, 2), {}, {q.enqueue});
  auto third = run_in_thread(sess, q.feed(3, 3), {}, {q.enqueue});
  CHECK(still_waiting(third));
  CHECK(size_of(sess, q.size) == 2);
  check_pair(run_ok(sess, {}, q.dequeue), 1, 1);
  auto r = finish(third);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  CHECK(size_of(sess, q.size) == 2);
  check_pair(run_ok(sess, {}, q.dequeue), 2, 2);
  check_pair(run_ok(sess, {}, q.dequeue), 3, 3);
}

TEST_CASE("enqueue_many splits dimension 0; dequeue_many stacks on a new dimension 0") {
  auto root = scope::new_root();
  auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32, dtype::int32},
                           {.shapes = {partial_shape{2}, partial_shape(tensor_shape{})}});
  auto images = ops::placeholder(root.with_op_name("images"), dtype::float32);
  auto labels = ops::placeholder(root.with_op_name("labels"), dtype::int32);
  auto enqueue = ops::queue_enqueue_many(root, q, {images, labels});
  auto n = ops::placeholder(root.with_op_name("n"), dtype::int32);
  auto batch = ops::queue_dequeue_many(root, q, n, {dtype::float32, dtype::int32});
  auto one = ops::queue_dequeue(root, q, {dtype::float32, dtype::int32});
  REQUIRE(root.ok());
  session sess(root, bounded);
  run_ok(sess,
         {{images, tensor::from_vector<float>({0, 1, 10, 11, 20, 21, 30, 31}, {4, 2})},
          {labels, tensor::from_vector<int32_t>({0, 1, 2, 3})}},
         {}, {enqueue});
  auto three = run_ok(sess, {{n, tensor::scalar<int32_t>(3)}}, batch);
  check_tensor(three[0], {3, 2}, std::vector<float>{0, 1, 10, 11, 20, 21});
  check_tensor(three[1], {3}, std::vector<int32_t>{0, 1, 2});
  auto last = run_ok(sess, {}, one);
  check_tensor(last[0], {2}, std::vector<float>{30, 31});
  check_tensor(last[1], {}, std::vector<int32_t>{3});
  // Zero elements: empty batches of the declared shapes, at once.
  auto none = run_ok(sess, {{n, tensor::scalar<int32_t>(0)}}, batch);
  check_tensor(none[0], {0, 2}, std::vector<float>{});
  check_tensor(none[1], {0}, std::vector<int32_t>{});
  check_error(sess.run({{n, tensor::scalar<int32_t>(-1)}}, batch),
              "cannot dequeue a negative number of elements: -1");
}

TEST_CASE("dequeue_many of more than the capacity takes elements as they arrive") {
  auto root = scope::new_root();
  pair_queue q(root, "q", {.capacity = 2});
  auto batch = ops::queue_dequeue_many(root, q.handle, ops::constant(root, int32_t{5}),
                                       {dtype::float32, dtype::int32});
  session sess(root, bounded);
  auto five = run_in_thread(sess, {}, batch);
  // Each enqueue finds room because the waiting dequeue drains the queue.
  for (int i = 0; i < 5; ++i) run_ok(sess, q.feed(float(i), i), {}, {q.enqueue});
  auto r = finish(five);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  check_tensor(r->at(0), {5}, std::vector<float>{0, 1, 2, 3, 4});
  check_tensor(r->at(1), {5}, std::vector<int32_t>{0, 1, 2, 3, 4});
}

TEST_CASE("every dtype family round-trips through enqueue_many and dequeue_many") {
  auto root = scope::new_root();
  const std::vector<dtype> types{dtype::float64, dtype::int64, dtype::uint8, dtype::boolean};
  auto q = ops::fifo_queue(root.with_op_name("q"), types);
  auto enqueue = ops::queue_enqueue_many(
      root, q,
      {ops::constant(root, tensor::from_vector<double>({0.25, -1.5})),
       ops::constant(root, tensor::from_vector<int64_t>({int64_t{1} << 40, -7}, {2, 1})),
       ops::constant(root, tensor::from_vector<uint8_t>({255, 0, 7, 8}, {2, 2})),
       ops::constant(root, tensor::from_vector<bool>({true, false}))});
  auto batch = ops::queue_dequeue_many(root, q, ops::constant(root, int32_t{2}), types);
  session sess(root, bounded);
  run_ok(sess, {}, {}, {enqueue});
  auto got = run_ok(sess, {}, batch);
  check_tensor(got[0], {2}, std::vector<double>{0.25, -1.5});
  check_tensor(got[1], {2, 1}, std::vector<int64_t>{int64_t{1} << 40, -7});
  check_tensor(got[2], {2, 2}, std::vector<uint8_t>{255, 0, 7, 8});
  check_tensor(got[3], {2}, std::vector<bool>{true, false});
}

TEST_CASE("close: enqueues fail, what is left drains, then dequeues fail with out_of_range") {
  auto root = scope::new_root();
  pair_queue q(root, "q");
  auto three = ops::queue_dequeue_many(root, q.handle, ops::constant(root, int32_t{3}),
                                       {dtype::float32, dtype::int32});
  auto close = ops::queue_close(root, q.handle);
  session sess(root, bounded);
  run_ok(sess, q.feed(1, 1), {}, {q.enqueue});
  run_ok(sess, q.feed(2, 2), {}, {q.enqueue});
  run_ok(sess, {}, {}, {close});
  auto refused = sess.run_targets({q.enqueue}, q.feed(3, 3));
  check_error(refused, "queue 'q' is closed");
  CHECK(refused.code() == error_code::cancelled);
  auto short_batch = sess.run(three);
  check_error(short_batch, "queue 'q' is closed and has insufficient elements (requested 3, has 2)");
  CHECK(short_batch.get_status().code() == error_code::out_of_range);
  // The failed dequeue_many took nothing.
  check_pair(run_ok(sess, {}, q.dequeue), 1, 1);
  check_pair(run_ok(sess, {}, q.dequeue), 2, 2);
  check_error(sess.run(q.dequeue),
              "queue 'q' is closed and has insufficient elements (requested 1, has 0)");
}

TEST_CASE("close wakes waiting dequeues with out_of_range") {
  auto root = scope::new_root();
  pair_queue q(root, "q");
  auto close = ops::queue_close(root, q.handle);
  session sess(root, bounded);
  auto waiting = run_in_thread(sess, {}, q.dequeue);
  CHECK(still_waiting(waiting));
  run_ok(sess, {}, {}, {close});
  check_error(finish(waiting), "queue 'q' is closed and has insufficient elements (requested 1, has 0)");
}

TEST_CASE("close keeps waiting enqueues unless cancel_pending_enqueues") {
  SUBCASE("without: the waiting enqueue completes when room is made") {
    auto root = scope::new_root();
    pair_queue q(root, "q", {.capacity = 1});
    auto close = ops::queue_close(root, q.handle);
    session sess(root, bounded);
    run_ok(sess, q.feed(1, 1), {}, {q.enqueue});
    auto second = run_in_thread(sess, q.feed(2, 2), {}, {q.enqueue});
    CHECK(still_waiting(second));
    run_ok(sess, {}, {}, {close});
    CHECK(still_waiting(second));
    check_pair(run_ok(sess, {}, q.dequeue), 1, 1);
    auto r = finish(second);
    CHECK_MESSAGE(r.ok(), r.get_status().to_string());
    check_pair(run_ok(sess, {}, q.dequeue), 2, 2);
  }
  SUBCASE("with: the waiting enqueue fails") {
    auto root = scope::new_root();
    pair_queue q(root, "q", {.capacity = 1});
    auto close = ops::queue_close(root, q.handle, {.cancel_pending_enqueues = true});
    session sess(root, bounded);
    run_ok(sess, q.feed(1, 1), {}, {q.enqueue});
    auto second = run_in_thread(sess, q.feed(2, 2), {}, {q.enqueue});
    CHECK(still_waiting(second));
    run_ok(sess, {}, {}, {close});
    check_error(finish(second), "queue 'q' was closed with cancel_pending_enqueues");
    check_pair(run_ok(sess, {}, q.dequeue), 1, 1);
  }
}

TEST_CASE("operation_timeout cancels a waiting dequeue, which then takes nothing") {
  auto root = scope::new_root();
  pair_queue q(root, "q");
  auto two = ops::queue_dequeue_many(root, q.handle, ops::constant(root, int32_t{2}),
                                     {dtype::float32, dtype::int32});
  session sess(root, {.operation_timeout = 200ms});
  const auto start = std::chrono::steady_clock::now();
  auto timed_out = sess.run(q.dequeue);
  check_error(timed_out, "did not finish within 200 ms and was cancelled");
  CHECK(timed_out.get_status().code() == error_code::deadline_exceeded);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  // The cancelled dequeue is gone: it does not swallow the next element.
  run_ok(sess, q.feed(7, 7), {}, {q.enqueue});
  CHECK(size_of(sess, q.size) == 1);
  // A dequeue_many cancelled half-served gives its element back, in front.
  check_error(sess.run(two), "did not finish within 200 ms");
  run_ok(sess, q.feed(8, 8), {}, {q.enqueue});
  CHECK(size_of(sess, q.size) == 2);
  check_pair(run_ok(sess, {}, q.dequeue), 7, 7);
  check_pair(run_ok(sess, {}, q.dequeue), 8, 8);
}

TEST_CASE("queues with one shared_name are one queue") {
  SUBCASE("two nodes of one session's graph") {
    auto root = scope::new_root();
    pair_queue a(root, "a", {.shared_name = "shared"});
    pair_queue b(root, "b", {.shared_name = "shared"});
    pair_queue other(root, "other");
    session sess(root, bounded);
    run_ok(sess, a.feed(1, 2), {}, {a.enqueue});
    CHECK(size_of(sess, b.size) == 1);
    CHECK(size_of(sess, other.size) == 0);
    check_pair(run_ok(sess, {}, b.dequeue), 1, 2);
  }
  SUBCASE("two clients' graphs on one task") {
    auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 2});
    REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
    auto producer_root = scope::new_root();
    pair_queue producer(producer_root, "producer_queue", {.shared_name = "shared"});
    auto consumer_root = scope::new_root();
    pair_queue consumer(consumer_root, "consumer_queue", {.shared_name = "shared"});
    auto wrong_root = scope::new_root();
    auto wrong = ops::fifo_queue(wrong_root.with_op_name("wrong"), {dtype::int32},
                                 {.shared_name = "shared"});
    auto wrong_size = ops::queue_size(wrong_root, wrong);
    const session_options remote{.target = (*srv)->target(), .operation_timeout = 20s};
    session producer_sess(producer_root, remote);
    session consumer_sess(consumer_root, remote);
    session wrong_sess(wrong_root, remote);
    auto waiting = run_in_thread(consumer_sess, {}, consumer.dequeue);
    CHECK(still_waiting(waiting));
    run_ok(producer_sess, producer.feed(3, 4), {}, {producer.enqueue});
    auto r = finish(waiting);
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    check_pair(*r, 3, 4);
    check_error(wrong_sess.run({wrong_size}),
                "shared queue 'shared' has component types (float32, int32), but this node asks "
                "for (int32)");
  }
}

TEST_CASE("enqueue errors name the component, what the queue expects and what was given") {
  auto root = scope::new_root();
  auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32, dtype::int32},
                           {.shapes = {partial_shape{2}, partial_shape(tensor_shape{})}});
  auto f = ops::placeholder(root.with_op_name("f"), dtype::float32);
  auto i = ops::placeholder(root.with_op_name("i"), dtype::int32);
  auto good_types = ops::queue_enqueue(root, q, {f, i});
  auto swapped = ops::queue_enqueue(root, q, {f, f});
  auto too_few = ops::queue_enqueue(root, q, {f});
  auto many = ops::queue_enqueue_many(root, q, {f, i});
  REQUIRE(root.ok());
  session sess(root, bounded);
  const auto two = tensor::from_vector<float>({1, 2});
  check_error(sess.run_targets({swapped}, {{f, two}}),
              "component 1 of queue 'q' must be int32, got float32");
  check_error(sess.run_targets({too_few}, {{f, two}}), "queue 'q' has 2 components, got 1");
  check_error(sess.run_targets({good_types}, {{f, tensor::from_vector<float>({1, 2, 3})},
                                              {i, tensor::scalar<int32_t>(1)}}),
              "component 0 of queue 'q' must have shape [2], got [3]");
  check_error(sess.run_targets({many}, {{f, tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})},
                                        {i, tensor::from_vector<int32_t>({1, 2, 3})}}),
              "components must have the same size in dimension 0: component 1 has shape [3], "
              "component 0 has [2,2]");
  check_error(sess.run_targets({many}, {{f, tensor::from_vector<float>({1, 2, 3}, {1, 3})},
                                        {i, tensor::from_vector<int32_t>({1})}}),
              "component 0 of queue 'q' must have shape [2], got [3]");
  check_error(sess.run_targets({many}, {{f, tensor::scalar(1.0f)}, {i, tensor::scalar<int32_t>(1)}}),
              "component 0 must be a batch (rank >= 1) to enqueue many, got shape []");
  // Nothing was enqueued by the failed calls.
  CHECK(size_of(sess, ops::queue_size(root, q)) == 0);
}

TEST_CASE("dequeue errors: wrong component types, unstackable elements") {
  auto root = scope::new_root();
  auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32});
  auto f = ops::placeholder(root.with_op_name("f"), dtype::float32);
  auto enqueue = ops::queue_enqueue(root, q, {f});
  auto wrong = ops::queue_dequeue(root, q, {dtype::int32});
  auto two = ops::queue_dequeue_many(root, q, ops::constant(root, int32_t{2}), {dtype::float32});
  auto one = ops::queue_dequeue(root, q, {dtype::float32});
  auto zero = ops::queue_dequeue_many(root, q, ops::constant(root, int32_t{0}), {dtype::float32});
  session sess(root, bounded);
  check_error(sess.run(wrong), "queue 'q' holds (float32), but this dequeue gives (int32)");
  run_ok(sess, {{f, tensor::from_vector<float>({1, 2})}}, {}, {enqueue});
  run_ok(sess, {{f, tensor::from_vector<float>({3, 4, 5})}}, {}, {enqueue});
  check_error(sess.run(two),
              "cannot stack the elements of queue 'q': component 0 of element 1 has shape [3], "
              "element 0's has [2]");
  check_error(sess.run(zero), "dequeuing 0 elements from queue 'q' needs fully defined component "
                              "shapes, component 0 has none");
  // The failed dequeue_many left both elements in place.
  check_tensor(run_ok(sess, {}, one).at(0), {2}, std::vector<float>{1, 2});
  check_tensor(run_ok(sess, {}, one).at(0), {3}, std::vector<float>{3, 4, 5});
}

TEST_CASE("graph construction catches bad queue attrs and inputs") {
  auto root = scope::new_root();
  ops::fifo_queue(root.with_op_name("q"), {dtype::float32}, {.capacity = 0});
  check_error(root.get_status(), "capacity must be -1 (unbounded) or positive, got 0");

  auto root2 = scope::new_root();
  ops::fifo_queue(root2.with_op_name("q"), {dtype::float32, dtype::int32},
                  {.shapes = {partial_shape{2}}});
  check_error(root2.get_status(), "shapes lists 1 shapes for 2 component types");

  auto root3 = scope::new_root();
  auto q = ops::fifo_queue(root3.with_op_name("q"), {dtype::float32});
  ops::queue_dequeue_many(root3, q, ops::constant(root3, int32_t{-2}), {dtype::float32});
  check_error(root3.get_status(), "cannot dequeue a negative number of elements: -2");

  auto root4 = scope::new_root();
  auto q4 = ops::fifo_queue(root4.with_op_name("q"), {dtype::float32, dtype::int32});
  ops::queue_enqueue_many(root4, q4,
                          {ops::constant(root4, tensor::from_vector<float>({1, 2})),
                           ops::constant(root4, tensor::from_vector<int32_t>({1, 2, 3}))});
  check_error(root4.get_status(), "components must have the same size in dimension 0");

  auto root5 = scope::new_root();
  auto q5 = ops::fifo_queue(root5.with_op_name("q"), {dtype::float32});
  ops::queue_enqueue_many(root5, q5, {ops::constant(root5, 1.0f)});
  check_error(root5.get_status(), "must have rank at least 1");
}

TEST_CASE("the queue resource: debug string and attrs checks") {
  fifo_queue q("q", {dtype::float32}, {}, 4);
  CHECK(q.debug_string() == "FIFOQueue 'q' (float32) size 0/4");
  check_error(fifo_queue::check_attrs({dtype::float32, dtype::resource}, {}, -1),
              "component 1 has dtype");
  check_error(fifo_queue::check_attrs({}, {}, -1), "at least one component type");
  check_error(q.matches({dtype::float32}, {}, 5),
              "shared queue 'q' has capacity 4, but this node asks for 5");
  check_error(q.matches({dtype::float32}, {partial_shape{3}}, 4),
              "shared queue 'q' has component shapes (), but this node asks for ([3])");
}
