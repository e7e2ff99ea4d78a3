// row_scatter_plan: update positions grouped by destination row, index order kept within a row,
// so a device thread per row element applies repeated indices as the CPU does.
#include <doctest/doctest.h>

#include <vector>

#include "kernels/common/row_scatter_plan.hpp"

using namespace caflow;

namespace {

template <class Index>
row_scatter_plan plan_of(const std::vector<Index>& idx) {
  return plan_row_scatter<Index>(idx);
}

std::vector<int64_t> vec(std::span<const int64_t> s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("repeated indices group by row, each row's positions in index order") {
  const row_scatter_plan p = plan_of<int32_t>({4, 1, 4, 0, 4, 1});
  CHECK(p.updates == 6);
  CHECK(p.rows == 3);
  CHECK(vec(p.order()) == std::vector<int64_t>{3, 1, 5, 0, 2, 4});
  CHECK(vec(p.starts()) == std::vector<int64_t>{0, 1, 3, 6});
  CHECK(vec(p.dest()) == std::vector<int64_t>{0, 1, 4});
  CHECK(p.data.size() == 6 + 4 + 3);
}

TEST_CASE("sorted and distinct indices keep their order, one position per row") {
  const row_scatter_plan p = plan_of<int64_t>({2, 5, 9});
  CHECK(vec(p.order()) == std::vector<int64_t>{0, 1, 2});
  CHECK(vec(p.starts()) == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(vec(p.dest()) == std::vector<int64_t>{2, 5, 9});
}

TEST_CASE("no indices: no rows, one start") {
  const row_scatter_plan p = plan_of<int32_t>({});
  CHECK(p.updates == 0);
  CHECK(p.rows == 0);
  CHECK(vec(p.starts()) == std::vector<int64_t>{0});
  CHECK(p.dest().empty());
}

TEST_CASE("a large shuffled plan covers every position once, grouped and stable") {
  std::vector<int64_t> idx;
  for (int64_t k = 0; k < 10000; ++k) idx.push_back((k * 7919) % 97);
  const row_scatter_plan p = plan_of<int64_t>(idx);
  CHECK(p.rows == 97);
  std::vector<int> seen(idx.size(), 0);
  for (int64_t r = 0; r < p.rows; ++r) {
    const int64_t row = p.dest()[r];
    int64_t last = -1;
    for (int64_t q = p.starts()[r]; q < p.starts()[r + 1]; ++q) {
      const int64_t k = p.order()[q];
      CHECK(idx[k] == row);
      CHECK(k > last);  // index order within the row
      last = k;
      ++seen[k];
    }
  }
  for (int s : seen) CHECK(s == 1);
}

TEST_CASE("negative indices take no row and are left out of the plan") {
  const row_scatter_plan p = plan_of<int64_t>({3, -1, 0, 3, -5});
  CHECK(p.updates == 3);
  CHECK(p.rows == 2);
  CHECK(vec(p.order()) == std::vector<int64_t>{2, 0, 3});
  CHECK(vec(p.starts()) == std::vector<int64_t>{0, 1, 3});
  CHECK(vec(p.dest()) == std::vector<int64_t>{0, 3});
}
