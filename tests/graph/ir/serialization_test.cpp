#include "graph/ir/serialization.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <numeric>

#include "devices/counting_allocator.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

template <class T>
tensor round_trip(const tensor& t) {
  auto back = deserialize_tensor(serialize_tensor(t));
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(back->type() == dtype_v<T>);
  return *back;
}

// Finds `needle` in `haystack` exactly once; the forging tests patch bytes next to it.
size_t find_once(const std::string& haystack, std::string_view needle) {
  const size_t at = haystack.find(needle);
  REQUIRE(at != std::string::npos);
  REQUIRE(haystack.find(needle, at + 1) == std::string::npos);
  return at;
}

template <class T>
std::string bytes_of(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

partial_shape scalar_shape() { return partial_shape(tensor_shape{}); }

// One node per kind of attr value, control inputs and devices included.
graph_def sample_graph() {
  graph_def g;
  g.nodes.push_back(node_def{
      .name = "x",
      .op = "Placeholder",
      .device = "/job:worker/replica:0/task:1/device:CPU:0",
      .inputs = {},
      .attrs = {{"dtype", attr_value(dtype::float32)}, {"shape", attr_value(partial_shape{-1, 3})}}});
  g.nodes.push_back(node_def{
      .name = "everything",
      .op = "Everything",
      .device = "",
      .inputs = {"x", "x:1", "^init", "^other/scope"},
      .attrs = {
          {"none", attr_value()},
          {"i", attr_value(int64_t{-7})},
          {"i_big", attr_value(int64_t{1} << 40)},
          {"f", attr_value(2.5f)},
          {"b", attr_value(true)},
          {"s", attr_value(std::string("nul\0inside", 10))},
          {"s_empty", attr_value(std::string())},
          {"t", attr_value(dtype::int64)},
          {"shape_known", attr_value(partial_shape{2, 3})},
          {"shape_partial", attr_value(partial_shape{-1, 4, -1})},
          {"shape_unknown", attr_value(partial_shape::unknown())},
          {"shape_scalar", attr_value(scalar_shape())},
          {"value", attr_value(tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, tensor_shape{2, 3}))},
          {"list_i", attr_value(std::vector<int64_t>{1, -2, int64_t{1} << 40})},
          {"list_i_empty", attr_value(std::vector<int64_t>{})},
          {"list_f", attr_value(std::vector<float>{0.5f, -1.25f})},
          {"list_b", attr_value(std::vector<bool>{true, false, true})},
          {"list_s", attr_value(std::vector<std::string>{"a", "", "bc"})},
          {"list_t", attr_value(std::vector<dtype>{dtype::float32, dtype::int32, dtype::boolean})},
          {"list_shape", attr_value(std::vector<partial_shape>{partial_shape::unknown(),
                                                               partial_shape{-1}, partial_shape{2, 3},
                                                               scalar_shape()})},
          {"list_tensor",
           attr_value(std::vector<tensor>{tensor::scalar<int32_t>(7),
                                          tensor::from_vector<bool>({true, false}),
                                          tensor(dtype::float64, tensor_shape{0, 2}), tensor()})},
      }});
  return g;
}

}  // namespace

TEST_CASE("tensors of every dtype round-trip with their values") {
  CHECK(round_trip<float>(tensor::from_vector<float>({1.5f, -2.0f, 1e-30f}))
            .to_vector<float>() == std::vector<float>{1.5f, -2.0f, 1e-30f});
  CHECK(round_trip<double>(tensor::from_vector<double>({3.25, -1e300}, tensor_shape{2, 1}))
            .to_vector<double>() == std::vector<double>{3.25, -1e300});
  CHECK(round_trip<int32_t>(tensor::from_vector<int32_t>({-2147483647 - 1, 0, 5}))
            .to_vector<int32_t>() == std::vector<int32_t>{-2147483647 - 1, 0, 5});
  CHECK(round_trip<int64_t>(tensor::from_vector<int64_t>({int64_t{1} << 62, -3}))
            .to_vector<int64_t>() == std::vector<int64_t>{int64_t{1} << 62, -3});
  CHECK(round_trip<uint8_t>(tensor::from_vector<uint8_t>({0, 255, 17}))
            .to_vector<uint8_t>() == std::vector<uint8_t>{0, 255, 17});
  const tensor b = round_trip<bool>(tensor::from_vector<bool>({true, false, false, true}, tensor_shape{2, 2}));
  CHECK(b.shape() == tensor_shape{2, 2});
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false, false, true});
}

TEST_CASE("scalar, zero-size and uninitialized tensors round-trip") {
  const tensor s = round_trip<double>(tensor::scalar(6.5));
  CHECK(s.rank() == 0);
  CHECK(s.scalar_value<double>() == 6.5);

  const tensor z = round_trip<int32_t>(tensor(dtype::int32, tensor_shape{3, 0, 2}));
  CHECK(z.shape() == tensor_shape{3, 0, 2});
  CHECK(z.num_elements() == 0);

  auto u = deserialize_tensor(serialize_tensor(tensor()));
  REQUIRE(u.ok());
  CHECK_FALSE(u->initialized());
}

TEST_CASE("shapes of rank 0 through 8 round-trip") {
  const std::vector<int64_t> dims = {2, 1, 3, 1, 2, 1, 1, 2};
  for (int rank = 0; rank <= max_rank; ++rank) {
    CAPTURE(rank);
    const tensor_shape shape(std::span<const int64_t>(dims.data(), rank));
    std::vector<int64_t> values(shape.num_elements());
    std::iota(values.begin(), values.end(), -5);
    const tensor back = round_trip<int64_t>(tensor::from_vector(values, shape));
    CHECK(back.rank() == rank);
    CHECK(back.shape() == shape);
    CHECK(back.to_vector<int64_t>() == values);
  }
}

TEST_CASE("a million floats are stored as raw bytes and come back equal") {
  const int64_t n = 1 << 20;
  tensor t(dtype::float32, tensor_shape{1024, n / 1024});
  float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i) * 0.5f;
  const std::string bytes = serialize_tensor(t);
  // 4 bytes per element plus a small fixed overhead: no per-element framing.
  CHECK(bytes.size() >= n * sizeof(float));
  CHECK(bytes.size() < n * sizeof(float) + 256);
  auto back = deserialize_tensor(bytes);
  REQUIRE(back.ok());
  CHECK(*back == t);
  CHECK(back->data<float>()[n - 1] == static_cast<float>(n - 1) * 0.5f);
  CHECK_FALSE(back->shares_buffer_with(t));
}

TEST_CASE("a slice serializes only its own rows") {
  const tensor t = tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, tensor_shape{3, 2});
  const tensor back = round_trip<int32_t>(t.slice_dim0(1, 3));
  CHECK(back.shape() == tensor_shape{2, 2});
  CHECK(back.to_vector<int32_t>() == std::vector<int32_t>{3, 4, 5, 6});
}

TEST_CASE("deserialized tensor buffers come from the given allocator") {
  auto counting = std::make_shared<counting_allocator>("test", default_allocator());
  auto back = deserialize_tensor(serialize_tensor(tensor::from_vector<float>({1, 2, 3})), counting);
  REQUIRE(back.ok());
  CHECK(counting->stats().num_allocs == 1);
  CHECK(counting->stats().bytes_in_use == 12);
}

TEST_CASE("a null allocator is refused, not dereferenced") {
  check_error(deserialize_tensor(serialize_tensor(tensor::scalar(1.0f)), nullptr),
              "no allocator given");
}

TEST_CASE("vector<char> overloads write and read the same archive") {
  const tensor t = tensor::from_vector<uint8_t>({4, 5, 6});
  std::vector<char> out = {'o', 'l', 'd'};
  serialize_tensor(t, out);
  const std::string as_string = serialize_tensor(t);
  CHECK(std::string(out.begin(), out.end()) == as_string);
  auto back = deserialize_tensor(out);
  REQUIRE(back.ok());
  CHECK(*back == t);

  std::vector<char> graph_bytes;
  serialize_graph(sample_graph(), graph_bytes);
  auto g = deserialize_graph(graph_bytes);
  REQUIRE(g.ok());
  CHECK(*g == sample_graph());
}

TEST_CASE("a graph_def with every attr type, control inputs and devices round-trips") {
  const graph_def g = sample_graph();
  auto back = deserialize_graph(serialize_graph(g));
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(*back == g);
  REQUIRE(back->nodes.size() == 2);
  const node_def& n = back->nodes[1];
  CHECK(n.inputs == std::vector<std::string>{"x", "x:1", "^init", "^other/scope"});
  CHECK(back->nodes[0].device == "/job:worker/replica:0/task:1/device:CPU:0");
  CHECK(n.attrs.size() == 21);
  CHECK_FALSE(n.attrs.at("none").has_value());
  CHECK(n.attrs.at("s").get<std::string>() == std::string("nul\0inside", 10));
  CHECK(n.attrs.at("list_b").get<std::vector<bool>>() == std::vector<bool>{true, false, true});
  CHECK_FALSE(n.attrs.at("shape_unknown").get<partial_shape>().rank_known());
  CHECK(n.attrs.at("shape_scalar").get<partial_shape>().rank() == 0);
  CHECK(n.attrs.at("shape_partial").get<partial_shape>().to_string() == "[?,4,?]");
  const auto& tensors = n.attrs.at("list_tensor").get<std::vector<tensor>>();
  REQUIRE(tensors.size() == 4);
  CHECK(tensors[0].scalar_value<int32_t>() == 7);
  CHECK(tensors[2].shape() == tensor_shape{0, 2});
  CHECK_FALSE(tensors[3].initialized());
}

TEST_CASE("an empty graph and a graph_def's own version round-trip") {
  graph_def g;
  g.version = 42;
  auto back = deserialize_graph(serialize_graph(g));
  REQUIRE(back.ok());
  CHECK(back->version == 42);
  CHECK(back->nodes.empty());
}

TEST_CASE("named tensor lists keep order, duplicates and names") {
  const std::vector<named_tensor> list = {
      {"w", tensor::from_vector<float>({1, 2}, tensor_shape{1, 2})},
      {"step", tensor::scalar<int64_t>(1000)},
      {"w", tensor::from_vector<bool>({false})},
      {"", tensor()},
  };
  auto back = deserialize_tensors(serialize_tensors(list));
  REQUIRE(back.ok());
  CHECK(*back == list);
  CHECK((*back)[1].second.scalar_value<int64_t>() == 1000);

  auto empty = deserialize_tensors(serialize_tensors({}));
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("the envelope refuses foreign, truncated and mislabeled input") {
  const std::string t = serialize_tensor(tensor::from_vector<int32_t>({1, 2, 3}));
  REQUIRE(t.substr(0, 4) == "CFLW");

  check_error(deserialize_tensor(""), "not a caflow archive");
  check_error(deserialize_tensor("PK\x03\x04 some zip file"), "not a caflow archive");
  check_error(deserialize_tensor(t.substr(0, 11)),
              "tensor archive truncated: 11 bytes, shorter than the 20-byte header");

  const size_t payload = t.size() - detail::archive_header_size;
  check_error(deserialize_tensor(t.substr(0, t.size() - 9)),
              "tensor archive truncated: header says " + std::to_string(payload) +
                  " payload bytes, " + std::to_string(payload - 9) + " present");
  check_error(deserialize_tensor(t + "xy"), "tensor archive has 2 trailing bytes");

  check_error(deserialize_graph(t), "archive holds a tensor, expected a graph");
  check_error(deserialize_tensors(serialize_graph(graph_def{})),
              "archive holds a graph, expected a tensor list");

  std::string future = t;
  future[4] = 7;
  check_error(deserialize_tensor(future), "unsupported archive version 7 (this build reads version 1)");

  std::string corrupt = t;
  corrupt[t.size() - 3] ^= 0x10;
  auto r = deserialize_tensor(corrupt);
  check_error(r, "tensor archive checksum mismatch");
  CHECK(r.get_status().code() == error_code::data_loss);
}

TEST_CASE("forged payloads with a valid checksum are refused by the parser") {
  using detail::reseal_for_testing;

  SUBCASE("a bool tensor byte other than 0 or 1") {
    std::string a = serialize_tensor(tensor::from_vector<bool>({true, false, true}));
    // The byte count, then the elements.
    a[find_once(a, bytes_of<uint64_t>(3) + std::string("\x01\x00\x01", 3)) + 9] = 2;
    check_error(deserialize_tensor(reseal_for_testing(a)), "bool tensor holds byte value 2 at element 1");
  }
  SUBCASE("a negative dimension and a rank above the maximum") {
    const std::string a = serialize_tensor(tensor(dtype::uint8, tensor_shape{3, 5, 7}));
    const size_t dims = find_once(a, bytes_of<int64_t>(3) + bytes_of<int64_t>(5) + bytes_of<int64_t>(7));
    std::string negative = a;
    negative.replace(dims + 8, 8, bytes_of<int64_t>(-5));
    check_error(deserialize_tensor(reseal_for_testing(negative)), "shape dimension -5 is negative");
    std::string deep = a;
    REQUIRE(deep[dims - 1] == 3);  // the rank precedes the dims
    deep[dims - 1] = 9;
    check_error(deserialize_tensor(reseal_for_testing(deep)), "tensor shape of rank 9 exceeds the maximum rank 8");
  }
  SUBCASE("a byte count that disagrees with the shape") {
    std::string a = serialize_tensor(tensor::from_vector<int32_t>({1, 2}));
    const size_t count = find_once(a, bytes_of<uint64_t>(8) + bytes_of<int32_t>(1));
    a.replace(count, 8, bytes_of<uint64_t>(4));
    check_error(deserialize_tensor(reseal_for_testing(a)),
                "tensor int32[2] announces 4 data bytes, expected 8");
  }
  SUBCASE("an invalid dtype in a list(type) attr") {
    std::string a = serialize_graph(sample_graph());
    const std::string types("\x01\x03\x06", 3);  // float32, int32, bool
    a[find_once(a, bytes_of<uint64_t>(3) + types) + 9] = 9;
    check_error(deserialize_graph(reseal_for_testing(a)), "invalid dtype 9 in type list");
  }
  SUBCASE("the same attr twice") {
    graph_def g;
    g.nodes.push_back(node_def{.name = "n",
                               .op = "Op",
                               .device = "",
                               .inputs = {},
                               .attrs = {{"key_1", attr_value(1)}, {"key_2", attr_value(2)}}});
    std::string a = serialize_graph(g);
    a[find_once(a, "key_2") + 4] = '1';
    check_error(deserialize_graph(reseal_for_testing(a)), "node 'n' has attr 'key_1' twice");
  }
  SUBCASE("a class version newer than this build") {
    graph_def g;
    g.version = 0x0123456789abcdefLL;
    std::string a = serialize_graph(g);
    // Boost writes the graph_def class's tracking flag and version just before its first field.
    const size_t field = find_once(a, bytes_of<int64_t>(g.version));
    REQUIRE(a.substr(field - 4, 4) == bytes_of<uint32_t>(1));
    a.replace(field - 4, 4, bytes_of<uint32_t>(7));
    check_error(deserialize_graph(reseal_for_testing(a)),
                "unsupported graph_def version 7 (this build reads up to version 1)");
  }
  SUBCASE("bytes left over after the value") {
    const std::string a = serialize_tensor(tensor::scalar<uint8_t>(1)) + "extra";
    check_error(deserialize_tensor(reseal_for_testing(a)), "tensor archive has 5 unread payload bytes");
  }
  SUBCASE("a payload cut in the middle of a value") {
    const std::string a = serialize_graph(graph_def{});
    // Drops the node count (8 bytes), the node list's class preamble (5) and 7 of the 8 bytes
    // of graph_def::version.
    check_error(deserialize_graph(reseal_for_testing(a.substr(0, a.size() - 20))),
                "graph archive payload ends in the middle of a value");
  }
  SUBCASE("a payload that is not a Boost archive") {
    std::string a = serialize_tensor(tensor::scalar<uint8_t>(1));
    a[detail::archive_header_size + 10] = 'X';  // inside "serialization::archive"
    check_error(deserialize_tensor(reseal_for_testing(a)), "payload does not start with a Boost binary archive header");
  }
}
