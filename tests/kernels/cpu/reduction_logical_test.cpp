// All and Any: logical reductions over bools, keep_dims, empty dims, and errors.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::vec32;

namespace {

tensor run1(const std::string& op, const tensor& x, const tensor& axes,
            std::map<std::string, attr_value> attrs = {}) {
  auto r = run_kernel(op, {x, axes}, std::move(attrs));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("All and Any over rows, columns and everything") {
  const auto x = tensor::from_vector<bool>({true, true, false, true, false, false}, {2, 3});
  check_tensor(run1("All", x, vec32({1})), {2}, std::vector<bool>{false, false});
  check_tensor(run1("Any", x, vec32({1})), {2}, std::vector<bool>{true, true});
  check_tensor(run1("All", x, vec32({0})), {3}, std::vector<bool>{true, false, false});
  check_tensor(run1("Any", x, vec32({0})), {3}, std::vector<bool>{true, true, false});
  check_tensor(run1("Any", x, vec32({0, 1}), {{"keep_dims", true}}), {1, 1},
               std::vector<bool>{true});
  check_tensor(run1("All", tensor::from_vector<bool>({}, {0}), vec32({0})), {},
               std::vector<bool>{true});
  check_tensor(run1("Any", tensor::from_vector<bool>({}, {0}), vec32({0})), {},
               std::vector<bool>{false});
}

TEST_CASE("All and Any take bools and valid axes only, naming the node") {
  check_error(run_kernel("All", {tensor::from_vector<int32_t>({1}), vec32({0})}), "test_All");
  check_error(run_kernel("Any", {tensor::from_vector<bool>({true}), vec32({3})}), "test_Any");
}
