// Einsum: the common equations against hand-computed or naive results, implicit outputs,
// ellipsis broadcasting, diagonals, and errors naming the node.
#include <doctest/doctest.h>

#include <map>
#include <span>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_einsum_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;

namespace {

tensor einsum(const std::string& eq, const std::vector<tensor>& in) {
  auto r = run_kernel("Einsum", in, {{"equation", eq}});
  REQUIRE_MESSAGE(r.ok(), eq, ": ", r.get_status().to_string());
  return r->at(0);
}

tensor batch_matmul(const tensor& x, const tensor& y) {
  auto r = run_kernel("BatchMatMulV2", {x, y});
  REQUIRE(r.ok());
  return r->at(0);
}

// The obvious loop over every assignment of the labels, for two float64 inputs (terms of
// letters, each label once per term).
tensor naive(const std::string& a, const std::string& b, const std::string& out, const tensor& x,
             const tensor& y) {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < a.size(); ++i) size[a[i]] = x.dim(static_cast<int>(i));
  for (size_t i = 0; i < b.size(); ++i) size[b[i]] = y.dim(static_cast<int>(i));
  std::vector<char> labels;
  for (const auto& [c, n] : size) labels.push_back(c);
  std::vector<int64_t> out_dims;
  for (char c : out) out_dims.push_back(size[c]);
  tensor result = tensor::filled<double>(tensor_shape(std::span<const int64_t>(out_dims)), 0.0);
  std::map<char, int64_t> v;
  for (char c : labels) v[c] = 0;
  auto offset = [&](const std::string& term, const tensor& t) {
    int64_t off = 0;
    for (size_t i = 0; i < term.size(); ++i) off = off * t.dim(static_cast<int>(i)) + v[term[i]];
    return off;
  };
  while (true) {
    int64_t o = 0;
    for (char c : out) o = o * size[c] + v[c];
    result.data<double>()[o] += x.data<double>()[offset(a, x)] * y.data<double>()[offset(b, y)];
    int d = static_cast<int>(labels.size()) - 1;
    for (; d >= 0; --d) {
      if (++v[labels[d]] < size[labels[d]]) break;
      v[labels[d]] = 0;
    }
    if (d < 0) break;
  }
  return result;
}

}  // namespace

TEST_CASE("large contractions take the batched-matmul path with the same results") {
  const struct {
    const char *a, *b, *out;
    tensor x, y;
  } cases[] = {
      {"bij", "bjk", "bik", iota<double>({4, 20, 24}, -200.0), iota<double>({4, 24, 16}, -700.0)},
      {"ij", "jk", "ki", iota<double>({30, 40}, -600.0), iota<double>({40, 20}, -300.0)},
      {"jbi", "kjb", "kbi", iota<double>({24, 3, 20}, -500.0), iota<double>({16, 24, 3}, -90.0)},
      {"ij", "kl", "ijkl", iota<double>({8, 9}, -30.0), iota<double>({10, 7}, -20.0)},
      {"bi", "bj", "ij", iota<double>({64, 12}, -300.0), iota<double>({64, 10}, -100.0)},
  };
  for (const auto& c : cases) {
    const std::string eq = std::string(c.a) + "," + c.b + "->" + c.out;
    INFO(eq);
    check_tensor(einsum(eq, {c.x, c.y}), naive(c.a, c.b, c.out, c.x, c.y), 1e-12);
  }
  auto r = run_kernel("Einsum", {iota<int64_t>({40, 30}), iota<int64_t>({30, 20})},
                      {{"equation", std::string("ij,jk->ik")}});
  REQUIRE(r.ok());
  auto mm = run_kernel("MatMul", {iota<int64_t>({40, 30}), iota<int64_t>({30, 20})});
  REQUIRE(mm.ok());
  check_tensor(r->at(0), mm->at(0));
}

TEST_CASE("matrix products") {
  const tensor a = tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  const tensor b = tensor::from_vector<double>({7, 8, 9, 10, 11, 12}, {3, 2});
  check_tensor(einsum("ij,jk->ik", {a, b}), {2, 2}, std::vector<double>{58, 64, 139, 154});
  check_tensor(einsum("ij,jk", {a, b}), {2, 2}, std::vector<double>{58, 64, 139, 154});
  // Transposed result, and transposed operands.
  check_tensor(einsum("ij,jk->ki", {a, b}), {2, 2}, std::vector<double>{58, 139, 64, 154});
  check_tensor(einsum("ji,kj->ik", {b, a}), {2, 2}, std::vector<double>{58, 139, 64, 154});
  const tensor x = iota<double>({3, 2, 4}, -3.0), y = iota<double>({3, 4, 5}, 1.0);
  check_tensor(einsum("bij,bjk->bik", {x, y}), batch_matmul(x, y), 1e-12);
  check_tensor(einsum("bij,jk->bik", {x, iota<double>({4, 2})}),
               batch_matmul(x, iota<double>({4, 2})), 1e-12);
  check_tensor(einsum("ijk,ikl->ijl", {x, y}), batch_matmul(x, y), 1e-12);
  check_tensor(einsum("...ij,...jk->...ik", {iota<double>({2, 1, 2, 3}), iota<double>({4, 3, 2})}),
               batch_matmul(iota<double>({2, 1, 2, 3}), iota<double>({4, 3, 2})), 1e-12);
  check_tensor(einsum("ij,jk->ik", {iota<int32_t>({2, 2}), iota<int32_t>({2, 2})}), {2, 2},
               std::vector<int32_t>{2, 3, 6, 11});
}

TEST_CASE("transposes, reductions, traces, outer and dot products") {
  const tensor a = tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  check_tensor(einsum("ij->ji", {a}), {3, 2}, std::vector<double>{1, 4, 2, 5, 3, 6});
  check_tensor(einsum("ij->i", {a}), {2}, std::vector<double>{6, 15});
  check_tensor(einsum("ij->j", {a}), {3}, std::vector<double>{5, 7, 9});
  check_tensor(einsum("ij->", {a}), {}, std::vector<double>{21});
  const tensor sq = tensor::from_vector<double>({1, 2, 3, 4}, {2, 2});
  check_tensor(einsum("ii->", {sq}), {}, std::vector<double>{5});
  check_tensor(einsum("ii->i", {sq}), {2}, std::vector<double>{1, 4});
  const tensor u = tensor::from_vector<double>({1, 2}, {2});
  const tensor v = tensor::from_vector<double>({3, 4, 5}, {3});
  check_tensor(einsum("i,j->ij", {u, v}), {2, 3}, std::vector<double>{3, 4, 5, 6, 8, 10});
  check_tensor(einsum("i,i->", {v, v}), {}, std::vector<double>{50});
  check_tensor(einsum("i,i", {v, v}), {}, std::vector<double>{50});
  check_tensor(einsum("ij,j->i", {a, v}), {2}, std::vector<double>{26, 62});
  check_tensor(einsum("ij,ij->ij", {a, a}), {2, 3}, std::vector<double>{1, 4, 9, 16, 25, 36});
  // Implicit output: the labels seen once, sorted: "ba" -> "ab", a transpose.
  check_tensor(einsum("ba", {a}), {3, 2}, std::vector<double>{1, 4, 2, 5, 3, 6});
  // A label only one input has is summed before the product.
  check_tensor(einsum("ij,k->i", {a, u}), {2}, std::vector<double>{18, 45});
  // Empty dims give zeros or empty outputs.
  check_tensor(einsum("ij,jk->ik", {iota<double>({2, 0}), iota<double>({0, 2})}), {2, 2},
               std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("bad equations are errors naming the node") {
  const tensor a = iota<double>({2, 3});
  check_error(run_kernel("Einsum", {a}, {{"equation", std::string("ij->k")}}), "test_Einsum");
  check_error(run_kernel("Einsum", {a}, {{"equation", std::string("ij->k")}}),
              "output label 'k' is in no input");
  check_error(run_kernel("Einsum", {a}, {{"equation", std::string("i1->i")}}),
              "invalid character '1'");
  check_error(run_kernel("Einsum", {a}, {{"equation", std::string("ijk->i")}}),
              "input 0 has rank 2 but its term 'ijk' needs 3");
  check_error(run_kernel("Einsum", {a, a}, {{"equation", std::string("ij->i")}}),
              "has 1 input terms but the op has 2 inputs");
  check_error(run_kernel("Einsum", {a, a}, {{"equation", std::string("ij,ij->ii")}}),
              "appears more than once");
  check_error(run_kernel("Einsum", {a, a, a}, {{"equation", std::string("i,i,i->i")}}),
              "only one or two inputs");
  check_error(run_kernel("Einsum", {a, iota<double>({4, 2})},
                         {{"equation", std::string("ij,jk->ik")}}),
              "label 'j' has size 3 in one place and 4 in input 1");
  // Unknown shapes: the kernel finds the mismatch at run time.
  auto r = run_kernel("Einsum", {a, iota<double>({4, 2})}, {{"equation", std::string("ij,jk->ik")}},
                      {.infer_shapes = false});
  check_error(r, "test_Einsum");
  check_error(r, "label 'j'");
  auto root = scope::new_root();
  ops::einsum(root.with_op_name("contract"), {ops::constant(root, a)}, "ij->x");
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("contract") != std::string::npos);
}
