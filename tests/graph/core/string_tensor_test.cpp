// String tensors: one flat block of offsets and bytes, so every byte-moving path moves them;
// bytes from outside are checked before they become a tensor.
#include <doctest/doctest.h>

#include <cstring>

#include "graph/core/tensor.hpp"

using namespace caflow;

TEST_CASE("a string tensor keeps its strings, shape and exact byte size") {
  const tensor t = tensor::from_strings({"loss", "", std::string("a\0b", 3)}, tensor_shape{3});
  CHECK(t.type() == dtype::string);
  CHECK(t.num_elements() == 3);
  CHECK(t.string_at(0) == "loss");
  CHECK(t.string_at(1).empty());
  CHECK(t.string_at(2) == std::string_view("a\0b", 3));
  CHECK(t.byte_size() == 8 * 4 + 7);
  CHECK(t.to_strings() == std::vector<std::string>{"loss", "", std::string("a\0b", 3)});
  CHECK(t.debug_string() == "string[3] {\"loss\", \"\", \"a?b\"}");

  const tensor s = tensor::string_scalar("tag");
  CHECK(s.rank() == 0);
  CHECK(s.string_at(0) == "tag");

  const tensor fresh(dtype::string, tensor_shape{2, 2});
  CHECK(fresh.byte_size() == 8 * 5);
  for (int64_t i = 0; i < 4; ++i) CHECK(fresh.string_at(i).empty());
}

TEST_CASE("copies, reshapes and row slices of string tensors hold the same strings") {
  const tensor t = tensor::from_strings({"a", "bb", "ccc", "dddd"}, tensor_shape{2, 2});
  const tensor copy = t.deep_copy();
  CHECK_FALSE(copy.shares_buffer_with(t));
  CHECK(copy.equals(t));
  CHECK(copy.to_strings() == t.to_strings());
  const tensor flat = t.reshaped(tensor_shape{4});
  CHECK(flat.string_at(3) == "dddd");
  const tensor row = t.slice_dim0(1, 2);
  CHECK(row.shape() == tensor_shape{1, 2});
  CHECK(row.to_strings() == std::vector<std::string>{"ccc", "dddd"});
  CHECK_FALSE(t.equals(tensor::from_strings({"a", "bb", "ccc", "ddde"}, tensor_shape{2, 2})));
  CHECK_FALSE(t.equals(tensor::from_strings({"a", "bb", "ccc", "dddd"}, tensor_shape{4})));
}

TEST_CASE("string bytes from outside are checked offset by offset") {
  const tensor t = tensor::from_strings({"ab", "cde"});
  std::string raw(static_cast<const char*>(t.raw_data()), t.byte_size());
  auto back = tensor::strings_from_bytes(t.shape(), raw.data(), raw.size());
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(back->equals(t));

  auto set_offset = [](std::string bytes, int i, uint64_t v) {
    std::memcpy(bytes.data() + 8 * i, &v, 8);
    return bytes;
  };
  auto refused = [&](const std::string& bytes, const tensor_shape& shape, const char* needle) {
    auto r = tensor::strings_from_bytes(shape, bytes.data(), bytes.size());
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().code() == error_code::data_loss);
    CHECK_MESSAGE(r.get_status().message().find(needle) != std::string::npos,
                  r.get_status().message());
  };
  refused(set_offset(raw, 0, 1), t.shape(), "first offset is not 0");
  refused(set_offset(set_offset(raw, 1, 4), 2, 3), t.shape(), "offset 2 (3) is out of order");
  refused(set_offset(raw, 1, 6), t.shape(), "offset 1 (6) is out of order or past the 5");
  refused(set_offset(raw, 2, 99), t.shape(), "offset 2 (99) is out of order or past the 5");
  refused(raw.substr(0, raw.size() - 1), t.shape(), "offset 2 (5) is out of order or past the 4");
  refused(raw + "x", t.shape(), "but its offsets end at 29");
  refused(raw.substr(0, 16), t.shape(), "needs 3 offsets, but has 16 bytes");
  refused(raw, tensor_shape{1000000000000}, "needs 1000000000001 offsets");
}
