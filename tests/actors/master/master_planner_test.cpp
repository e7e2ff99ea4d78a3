// A master plans a run signature (prune, place, partition, graph passes) on a thread of its
// own: its task's actors run on the network loop, which must keep serving other sessions, and
// answering its peers' heartbeats, while a large graph is planned.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/platform/time_scale.hpp"

using namespace caflow;
using clock_type = std::chrono::steady_clock;

TEST_CASE("a session's small step runs while another session's large graph is planned") {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());

  // A long chain whose planning (and constant folding: every node is constant) takes a while.
  auto big_root = scope::new_root();
  auto c = ops::constant(big_root.with_op_name("c"), 1.0f);
  auto v = c;
  constexpr int chain = 20000;
  for (int i = 0; i < chain; ++i)
    v = ops::add(big_root.with_op_name("a" + std::to_string(i)), v, ops::constant(big_root, 0.0f));
  auto small_root = scope::new_root();
  auto x = ops::placeholder(small_root.with_op_name("x"), dtype::float32);
  auto y = ops::mul(small_root.with_op_name("y"), x, ops::constant(small_root, 3.0f));

  session small(small_root, {.target = (*srv)->target()});
  session big(big_root, {.target = (*srv)->target()});
  REQUIRE(small.run({{x, tensor::scalar(1.0f)}}, {y}).ok());  // planned and registered already
  REQUIRE(big.run({c}).ok());  // the master has the big graph; fetching the chain's end plans it

  std::atomic<bool> big_done{false};
  clock_type::duration big_took{};
  std::thread big_client([&] {
    const auto start = clock_type::now();
    auto out = big.run({}, {v});
    big_took = clock_type::now() - start;
    big_done = true;
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 1.0f);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the big one is being planned
  const auto start = clock_type::now();
  auto out = small.run({{x, tensor::scalar(2.0f)}}, {y});
  const auto small_took = clock_type::now() - start;
  const bool big_was_done = big_done;
  big_client.join();
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == 6.0f);
  MESSAGE("big step (planning a ", chain, "-node chain) took ",
          std::chrono::duration<double, std::milli>(big_took).count(), " ms; the small step ",
          std::chrono::duration<double, std::milli>(small_took).count(), " ms");
  // The small step did not wait for the big one's planning. How much sooner it ends is the
  // machine's business (load stretches either step), so only the order is asserted.
  CHECK_FALSE(big_was_done);
}
