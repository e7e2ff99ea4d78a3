// train::sync_replicas_optimizer's chief initializer: after a restore moves the global step
// back, the accumulators (which a surviving ps keeps) must take that step again, or they drop
// every gradient as stale and the chief's next update waits forever.
#include <doctest/doctest.h>

#include <chrono>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/sync_replicas_optimizer.hpp"
#include "graph/client/train/variables.hpp"

using namespace caflow;

namespace {

struct sync_graph {
  scope root = scope::new_root();
  train::variable w = train::create_variable(root, "w", ops::constant(root, 1.0f));
  train::variable step = train::create_global_step(root);
  train::gradient_descent_optimizer sgd{0.1};
  train::sync_replicas_optimizer sync{sgd, {.replicas_to_aggregate = 1, .is_chief = true,
                                            .local_device = ""}};
  operation train_op;
  operation init;
  operation rewind;  // what a restore does to the global step

  sync_graph() {
    auto loss = ops::square(root.with_op_name("loss"), w);
    auto op = sync.minimize(root, loss, step, {w});
    REQUIRE_MESSAGE(op.ok(), op.get_status().to_string());
    train_op = *op;
    init = train::global_variables_initializer(root, train::variable_set{w, step});
    auto back = ops::assign(root.with_op_name("rewind"), step.ref,
                            ops::constant(root, static_cast<int64_t>(1)));
    rewind = operation{back.node, {back.type}};
  }
};

int64_t global_step(session& sess, const sync_graph& g) {
  auto out = sess.run({g.step.ref});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0).scalar_value<int64_t>();
}

// Three updates, then the global step goes back to 1 as a restore would set it; the local
// step follows it (the attempt's local initializer).
void train_then_rewind(session& sess, sync_graph& g) {
  REQUIRE(sess.run_targets({g.init}).ok());
  REQUIRE(sess.run_targets({g.sync.chief_initializer()}).ok());
  REQUIRE(sess.run_targets({g.sync.local_initializer()}).ok());
  for (int i = 0; i < 3; ++i) REQUIRE(sess.run_targets({g.train_op}).ok());
  CHECK(global_step(sess, g) == 3);
  REQUIRE(sess.run_targets({g.rewind}).ok());
  REQUIRE(sess.run_targets({g.sync.local_initializer()}).ok());
}

}  // namespace

TEST_CASE("after a rewound global step, the chief initializer lets updates through again") {
  sync_graph g;
  session sess(g.root, {.operation_timeout = std::chrono::seconds(10)});
  train_then_rewind(sess, g);
  REQUIRE(sess.run_targets({g.sync.chief_initializer()}).ok());
  auto st = sess.run_targets({g.train_op});
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  CHECK(global_step(sess, g) == 2);
}

TEST_CASE("without it, the accumulator drops the chief's gradient as stale and the update waits") {
  sync_graph g;
  session sess(g.root, {.operation_timeout = std::chrono::milliseconds(500)});
  train_then_rewind(sess, g);
  auto st = sess.run_targets({g.train_op});
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == error_code::deadline_exceeded);
  CHECK(global_step(sess, g) == 1);
}
