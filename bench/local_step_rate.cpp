// Steps per second of a local session running the smallest useful step:
//   a (fed float) ──┐
//                   Add ── fetched
//   b (fed float) ──┘
// Target: at least 100,000 steps/s on a 2-core machine.
#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"

using namespace caflow;

int main() {
  auto root = scope::new_root();
  auto a = ops::placeholder(root.with_op_name("a"), dtype::float32);
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float32);
  auto sum = ops::add(root.with_op_name("sum"), a, b);
  session sess(root);
  const session::feed_list feeds{{a, tensor::scalar(1.0f)}, {b, tensor::scalar(2.0f)}};
  const std::vector<output> fetches{sum};
  auto first = sess.run(feeds, fetches);
  bench::check(first.ok() && first->at(0).scalar_value<float>() == 3.0f, "1 + 2 != 3");
  const double steps = bench::rate([&] { (void)sess.run(feeds, fetches); }, 3.0);
  bench::result("local_step_rate", steps, "steps/s");
  return 0;
}
