// Proves an installed caflow is usable from another CMake project: builds and runs a graph.
#include <cstdio>

#include <actors/session/session.hpp>
#include <graph/client/ops/ops.hpp>

int main() {
  using namespace caflow;
  auto root = scope::new_root();
  auto a = ops::constant(root, 2.0f);
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float32);
  auto c = ops::add(root, a, b);
  session sess(root);
  auto out = sess.run({{b, tensor::scalar(40.0f)}}, {c});
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.get_status().to_string().c_str());
    return 1;
  }
  const float v = out->at(0).scalar_value<float>();
  std::printf("consumer: 2 + 40 = %g\n", v);
  return v == 42.0f ? 0 : 1;
}
