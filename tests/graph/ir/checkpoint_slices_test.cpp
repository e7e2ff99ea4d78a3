// Slices in checkpoints (graph/ir/tensor_slice.hpp, checkpoint_reader.hpp, SaveV2/RestoreV2 with
// shape_and_slices): TF's "10 4 0,4:-" specs, a tensor assembled from slices in several files,
// and the errors of a checkpoint whose slices are corrupt, overlapping or incomplete.
#include <doctest/doctest.h>

#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/checkpoint_reader.hpp"
#include "graph/ir/tensor_slice.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::temp_dir;

namespace {

// Rows [begin, begin + n) of iota<float>({rows, cols}), as a flat vector.
std::vector<float> rows_of(int64_t cols, int64_t begin, int64_t n) {
  std::vector<float> v;
  for (int64_t i = begin * cols; i < (begin + n) * cols; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// Saves rows [begin, begin + n) of iota [10,4] as slices of "emb" into `path`, with SaveV2.
void save_rows(const std::string& path, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  std::vector<tensor> inputs{checkpoint::path_tensor(path)};
  std::vector<std::string> names, slices;
  std::vector<dtype> types;
  for (const auto& [begin, n] : ranges) {
    inputs.push_back(tensor::from_vector<float>(rows_of(4, begin, n), {n, 4}));
    names.push_back("emb");
    slices.push_back(row_slice({10, 4}, begin, n).to_string());
    types.push_back(dtype::float32);
  }
  auto out = run_kernel("SaveV2", inputs,
                        {{"tensor_names", names}, {"shape_and_slices", slices}, {"dtypes", types}});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
}

status_or<std::vector<tensor>> restore(const std::string& pattern, const std::string& slice,
                                       dtype type = dtype::float32) {
  return run_kernel("RestoreV2", {checkpoint::path_tensor(pattern)},
                    {{"tensor_names", std::vector<std::string>{"emb"}},
                     {"shape_and_slices", std::vector<std::string>{slice}},
                     {"dtypes", std::vector<dtype>{type}}});
}

}  // namespace

TEST_CASE("shape_and_slice: parse, canonical text, intersection") {
  auto s = parse_shape_and_slice("10 4 0,4:-");
  REQUIRE_MESSAGE(s.ok(), s.get_status().to_string());
  CHECK(s->full == tensor_shape{10, 4});
  CHECK(s->shape() == tensor_shape{4, 4});
  CHECK(s->to_string() == "10 4 0,4:-");
  CHECK_FALSE(s->covers_all());
  CHECK(parse_shape_and_slice("10 4 0,10:0,4")->to_string() == "10 4 -:-");
  CHECK(parse_shape_and_slice("10 4 -:-")->covers_all());
  CHECK(row_slice({10, 4}, 7, 3).to_string() == "10 4 7,3:-");

  const auto a = row_slice({10, 4}, 0, 5), b = row_slice({10, 4}, 4, 3);
  const auto both = intersect(a, b);
  REQUIRE(both.has_value());
  CHECK(both->start == std::vector<int64_t>{4, 0});
  CHECK(both->length == std::vector<int64_t>{1, 4});
  CHECK_FALSE(intersect(row_slice({10, 4}, 0, 4), row_slice({10, 4}, 4, 3)).has_value());

  check_error(parse_shape_and_slice("10 4 -"), "the slice spec '-' has 1 extents for rank 2");
  check_error(parse_shape_and_slice("0,4:-"), "expected the full shape's dims and then a slice");
  check_error(parse_shape_and_slice("10 4 0,x:-"), "extent '0,x' is neither '-' nor");
  check_error(parse_shape_and_slice("10 4 8,3:-"), "extent 8,3 lies outside dimension 0 of size 10");
  check_error(parse_shape_and_slice("10 -4 -:-"), "'-4' is not a dimension size");
}

TEST_CASE("copy_slice moves a box between tensors holding other boxes (rank 3)") {
  const tensor_shape full{4, 3, 2};
  const tensor src = iota<int32_t>(full);
  // dst holds [1,3) x [1,3) x [0,2); copy the part [2,3) x [1,3) x [1,2).
  tensor_slice dst_box = whole_slice(full), part = whole_slice(full);
  dst_box.start = {1, 1, 0};
  dst_box.length = {2, 2, 2};
  part.start = {2, 1, 1};
  part.length = {1, 2, 1};
  tensor dst = tensor::filled<int32_t>({2, 2, 2}, -1);
  copy_slice(src, whole_slice(full), dst, dst_box, part);
  // src[2][1][1] = 15 lands at dst[1][0][1]; src[2][2][1] = 17 at dst[1][1][1].
  check_tensor(dst, {2, 2, 2}, std::vector<int32_t>{-1, -1, -1, -1, -1, 15, -1, 17});
}

TEST_CASE("RestoreV2 assembles any rows from slices spread over several files") {
  temp_dir dir("caflow_slices_test_");
  // 3 shards on 2 tasks: rows [0,4) and [7,10) in one file, [4,7) in the other.
  save_rows(dir.file("ckpt-1.shard-0-of-2"), {{0, 4}, {7, 3}});
  save_rows(dir.file("ckpt-1.shard-1-of-2"), {{4, 3}});
  const std::string pattern = dir.file("ckpt-1.shard-*-of-2");

  // Each of 2 new shards reads exactly its rows; rows [0,5) span both files.
  auto first = restore(pattern, "10 4 0,5:-");
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  check_tensor(first->at(0), {5, 4}, rows_of(4, 0, 5));
  auto second = restore(pattern, "10 4 5,5:-");
  REQUIRE(second.ok());
  check_tensor(second->at(0), {5, 4}, rows_of(4, 5, 5));
  // The whole, as an unpartitioned variable asks for it ("" or the full slice).
  check_tensor(restore(pattern, "")->at(0), {10, 4}, rows_of(4, 0, 10));
  check_tensor(restore(pattern, "10 4 -:-")->at(0), {10, 4}, rows_of(4, 0, 10));
  // A column box crosses slices too.
  check_tensor(restore(pattern, "10 4 3,2:1,2")->at(0), {2, 2},
               std::vector<float>{13, 14, 17, 18});

  // A whole saved tensor restores into rows.
  const std::string whole = dir.file("whole");
  REQUIRE(run_kernel("SaveV2", {checkpoint::path_tensor(whole), iota<float>({10, 4})},
                     {{"tensor_names", std::vector<std::string>{"emb"}},
                      {"dtypes", std::vector<dtype>{dtype::float32}}})
              .ok());
  check_tensor(restore(whole, "10 4 7,3:-")->at(0), {3, 4}, rows_of(4, 7, 3));
}

TEST_CASE("RestoreV2 names the variable and both shapes when the full shape or dtype differs") {
  temp_dir dir("caflow_slices_test_");
  save_rows(dir.file("ckpt-1.shard-0-of-1"), {{0, 4}, {4, 6}});
  const std::string pattern = dir.file("ckpt-1.shard-*-of-1");
  auto wider = restore(pattern, "12 4 0,6:-");
  check_error(wider, "variable 'emb' has full shape [12,4], but the checkpoint holds it with "
                     "full shape [10,4] (checkpoint file '" +
                         dir.file("ckpt-1.shard-0-of-1") + "')");
  CHECK(wider.get_status().code() == error_code::invalid_argument);
  check_error(restore(pattern, "", dtype::float64),
              "holds 'emb' as float32[10,4], expected float64");
  check_error(restore(pattern, "10 5 0,6:-"), "has full shape [10,5]");
}

TEST_CASE("RestoreV2: a gap in the saved slices, overlapping slices, a corrupt slice spec") {
  temp_dir dir("caflow_slices_test_");
  // Rows [4,7) are missing: shard 1 of 3 was never saved.
  save_rows(dir.file("gap"), {{0, 4}, {7, 3}});
  check_tensor(restore(dir.file("gap"), "10 4 0,4:-")->at(0), {4, 4}, rows_of(4, 0, 4));
  auto gap = restore(dir.file("gap"), "10 4 2,4:-");
  check_error(gap, "the saved slices of 'emb' ('10 4 0,4:-', '10 4 7,3:-' in checkpoint file '" +
                       dir.file("gap") + "') cover 8 of the 16 elements of '10 4 2,4:-'");
  CHECK(gap.get_status().code() == error_code::data_loss);

  save_rows(dir.file("ckpt-2.shard-0-of-2"), {{0, 5}});
  save_rows(dir.file("ckpt-2.shard-1-of-2"), {{4, 6}});
  check_error(restore(dir.file("ckpt-2.shard-*-of-2"), ""),
              "tensor 'emb' has overlapping slices '10 4 0,5:-' and '10 4 4,6:-'");

  // Written by hand as a damaged (or hostile) writer would.
  const std::string corrupt = dir.file("corrupt");
  REQUIRE(checkpoint::write_tensors(corrupt, {{"emb:10 4 0,x:-", iota<float>({4, 4})}}).ok());
  auto bad = restore(corrupt, "");
  check_error(bad, "checkpoint file '" + corrupt +
                       "': entry 'emb:10 4 0,x:-' has a corrupt slice spec");
  CHECK(bad.get_status().code() == error_code::data_loss);
  REQUIRE(checkpoint::write_tensors(corrupt, {{"emb:10 4 0,4:-", iota<float>({3, 4})}}).ok());
  check_error(restore(corrupt, ""), "entry 'emb:10 4 0,4:-' holds [3,4], but its slice is [4,4]");

  // SaveV2 refuses a tensor that is not shaped as its slice.
  check_error(run_kernel("SaveV2", {checkpoint::path_tensor(dir.file("x")), iota<float>({3, 4})},
                         {{"tensor_names", std::vector<std::string>{"emb"}},
                          {"shape_and_slices", std::vector<std::string>{"10 4 0,4:-"}},
                          {"dtypes", std::vector<dtype>{dtype::float32}}}),
              "tensor 'emb' to save as slice '10 4 0,4:-' is [3,4], the slice is [4,4]");
}
