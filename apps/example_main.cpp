// A small graph, built and run in-process through a session:
//
//     x (fed) ──┐
//               MatMul ── Add ── y        y = x · W + b
//     W (var) ──┘        /
//     b (const) ────────┘
//
// It prints y, then updates W with AssignAdd and prints y again to show that variables keep
// their state across runs.
#include <cstdio>

#include "actors/session.hpp"
#include "graph/ops/ops.hpp"

using namespace caflow;

namespace {
int fail(const status& st) {
  std::fprintf(stderr, "caflow-example: %s\n", st.to_string().c_str());
  return 1;
}
}  // namespace

int main() {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {-1, 2}});
  auto w = ops::variable(root.with_op_name("W"), partial_shape{2, 2}, dtype::float32);
  auto init = ops::assign(root.with_op_name("init"), w,
                          ops::constant(root, std::vector<float>{1, 2, 3, 4}, {2, 2}));
  auto b = ops::constant(root.with_op_name("b"), std::vector<float>{0.5f, -0.5f}, {2});
  auto y = ops::add(root.with_op_name("y"), ops::mat_mul(root, x, w), b);
  auto step = ops::assign_add(root.with_op_name("step"), w,
                              ops::constant(root, std::vector<float>{1, 1, 1, 1}, {2, 2}));

  session sess(root);
  if (auto st = sess.run_targets({{init.node, {}}}); !st.ok()) return fail(st);
  const tensor input = tensor::from_vector<float>({1, 0, 0, 1, 2, 3}, {3, 2});
  for (int round = 0; round < 2; ++round) {
    auto out = sess.run({{x, input}}, {y});
    if (!out.ok()) return fail(out.get_status());
    std::printf("y = x·W + b (round %d): %s\n", round, out->at(0).debug_string().c_str());
    if (auto st = sess.run_targets({{step.node, {}}}); !st.ok()) return fail(st);
  }
  return 0;
}
