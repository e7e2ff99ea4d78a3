// A small graph, built and run in-process through a session:
//
//     x (fed) ──┐
//               MatMul ── Add ── y        y = x · W + b
//     W (var) ──┘        /
//     b (const) ────────┘
//
// It prints y, then updates W with AssignAdd and prints y again to show that variables keep
// their state across runs.
//
//   caflow-example                                   in this process
//   caflow-example --target caflow://127.0.0.1:2223  on a cluster with jobs ps and worker:
//                                                    W on /job:ps/task:0, MatMul on
//                                                    /job:worker/task:1, the rest on the
//                                                    target's task
//   caflow-example --target ... --tls-cert C --tls-key K --tls-ca CA   on a TLS cluster
//                                                    (certificates: caflow-certs)
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "net/security/transport_security.hpp"

using namespace caflow;

namespace {
int fail(const status& st) {
  std::fprintf(stderr, "caflow-example: %s\n", st.to_string().c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  session_options opts;
  // Flag-value pairs: the target, the cluster id its servers share (a secret when they serve
  // in plaintext on loopback), and the client's certificate, key and CA when they serve TLS.
  const std::pair<const char*, std::string*> flags[] = {
      {"--target", &opts.target},          {"--cluster-id", &opts.security.cluster_id},
      {"--tls-cert", &opts.security.cert}, {"--tls-key", &opts.security.key},
      {"--tls-ca", &opts.security.ca}};
  for (int i = 1; i < argc; i += 2) {
    std::string* value = nullptr;
    for (const auto& [name, field] : flags)
      if (i + 1 < argc && std::strcmp(argv[i], name) == 0) value = field;
    if (value == nullptr) {
      std::fprintf(stderr,
                   "usage: caflow-example [--target caflow://host:port] [--cluster-id ID] "
                   "[--tls-cert PEM --tls-key PEM --tls-ca PEM]\n");
      return 2;
    }
    *value = argv[i + 1];
  }
  // The files are checked before the session connects, as by every other caflow binary: a bad
  // one is a line naming the flag and the file, not a failed handshake.
  if (status st = validate(opts.security); !st.ok()) {
    std::fprintf(stderr, "caflow-example: %s\n", st.message().c_str());
    return 1;
  }
  const bool cluster = opts.target != "local";
  auto root = scope::new_root();
  auto ps = cluster ? root.with_device("/job:ps/task:0") : root;
  auto worker1 = cluster ? root.with_device("/job:worker/task:1") : root;
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {-1, 2}});
  auto w = ops::variable(ps.with_op_name("W"), partial_shape{2, 2}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), w,
                          ops::constant(ps, std::vector<float>{1, 2, 3, 4}, {2, 2}));
  auto b = ops::constant(root.with_op_name("b"), std::vector<float>{0.5f, -0.5f}, {2});
  auto y = ops::add(root.with_op_name("y"), ops::mat_mul(worker1, x, w), b);
  auto step = ops::assign_add(ps.with_op_name("step"), w,
                              ops::constant(ps, std::vector<float>{1, 1, 1, 1}, {2, 2}));

  session sess(root, opts);
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
