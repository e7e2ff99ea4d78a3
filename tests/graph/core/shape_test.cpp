#include <doctest/doctest.h>

#include "graph/core/shape.hpp"

using namespace caflow;

TEST_CASE("tensor_shape counts elements, including zero-size dims") {
  CHECK(tensor_shape{}.num_elements() == 1);
  CHECK(tensor_shape{}.rank() == 0);
  CHECK(tensor_shape{2, 3, 4}.num_elements() == 24);
  CHECK(tensor_shape{2, 0, 4}.num_elements() == 0);
  tensor_shape s{2, 3};
  s.add_dim(5);
  CHECK(s == tensor_shape{2, 3, 5});
  s.remove_dim(1);
  CHECK(s == tensor_shape{2, 5});
  s.insert_dim(0, 7);
  CHECK(s.to_string() == "[7,2,5]");
  CHECK(s.num_elements() == 70);
}

TEST_CASE("tensor_shape::make rejects bad dims") {
  std::vector<int64_t> neg{2, -1};
  auto r = tensor_shape::make(neg);
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().message().find("negative") != std::string::npos);
  std::vector<int64_t> huge{1LL << 40, 1LL << 40};
  CHECK_FALSE(tensor_shape::make(huge).ok());
  std::vector<int64_t> deep(max_rank + 1, 1);
  CHECK_FALSE(tensor_shape::make(deep).ok());
}

TEST_CASE("partial_shape merges and detects clashes") {
  partial_shape a{-1, 3};
  partial_shape b{2, -1};
  auto m = a.merge(b);
  REQUIRE(m.ok());
  CHECK(m->to_string() == "[2,3]");
  CHECK(m->fully_defined());
  CHECK_FALSE(partial_shape({2, 3}).compatible_with(partial_shape{2, 4}));
  CHECK_FALSE(partial_shape({2, 3}).compatible_with(partial_shape{2, 3, 1}));
  CHECK(partial_shape::unknown().compatible_with(partial_shape{5}));
  CHECK(partial_shape::unknown().to_string() == "<unknown>");
}
