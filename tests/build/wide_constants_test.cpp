// 32- and 64-byte integer constants survive the build's -march: GCC 12 with AVX-512 loaded
// {1, 1, 1, 0} as a broadcast of its first word ({1, 1, 1, 1}) until the build capped
// by-pieces moves (cmake/detect_arch.cmake). The copies are out of line, as in the test that
// found it (an int64 UnsortedSegmentSum whose ids came out all ones).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/core/tensor.hpp"

using namespace caflow;

namespace {

__attribute__((noinline)) std::vector<int64_t> four_ids() { return {1, 1, 1, 0}; }

__attribute__((noinline)) void copy_eight(int64_t* out) {
  const int64_t values[8] = {2, 2, 2, 2, 2, 2, 0, 0};
  std::memcpy(out, values, sizeof values);
}

// High words that only copy the sign are dropped too: {-2, -2, -1, -1} became four -2s.
__attribute__((noinline)) void copy_negative(int64_t* out) {
  const int64_t values[4] = {-2, -2, -1, -1};
  std::memcpy(out, values, sizeof values);
}

}  // namespace

TEST_CASE("wide integer constants keep their high zero words") {
  CHECK(four_ids() == std::vector<int64_t>{1, 1, 1, 0});
  int64_t eight[8];
  copy_eight(eight);
  const int64_t expected[8] = {2, 2, 2, 2, 2, 2, 0, 0};
  for (int i = 0; i < 8; ++i) CHECK_MESSAGE(eight[i] == expected[i], "word ", i);
  int64_t negative[4];
  copy_negative(negative);
  CHECK(negative[0] == -2);
  CHECK(negative[1] == -2);
  CHECK(negative[2] == -1);
  CHECK(negative[3] == -1);
}

TEST_CASE("an int64 tensor built from a braced list holds that list") {
  tensor ids = tensor::from_vector<int64_t>({1, 1, 1, 0});
  const int64_t* d = ids.data<int64_t>();
  CHECK(d[0] == 1);
  CHECK(d[1] == 1);
  CHECK(d[2] == 1);
  CHECK(d[3] == 0);
}
