// NumPy .npy files: the bytes numpy.save writes, every element type caflow has, Fortran order,
// big-endian data, format 2.0, and an error naming the file for each way a file can be wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph/tf/npy.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

// A file as numpy would write it: magic, version, little-endian header length, the dict padded
// with spaces and a newline to a multiple of 64 bytes, then `data`.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t k = 0; k < prefix - 8; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  return out + header + data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

}  // namespace

TEST_CASE("the bytes numpy.save writes for float32 (2, 3)") {
  const tensor t = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const std::string want =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw<float>({1, 2, 3, 4, 5, 6}));
  CHECK(tf::npy_bytes(t) == want);
  CHECK(tf::npy_header(t).size() % 64 == 0);
  auto back = tf::parse_npy(want, "a.npy");
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(*back == t);
}

TEST_CASE("every element type and rank round-trips") {
  const std::vector<tensor> cases = {
      tensor::scalar(2.5f),
      tensor::from_vector<double>({1.5, -2.25, 1e300}, {3}),
      tensor::from_vector<int32_t>({-1, 2, 2147483647, 0}, {2, 1, 2}),
      tensor::from_vector<int64_t>({int64_t{1} << 40, -7}, {2}),
      tensor::from_vector<uint8_t>({0, 255, 7}, {1, 3}),
      tensor::from_vector<bool>({true, false, true}, {3}),
      tensor(dtype::float32, tensor_shape{0, 4}),
  };
  for (const tensor& t : cases) {
    CAPTURE(t.debug_string());
    auto back = tf::parse_npy(tf::npy_bytes(t), "t.npy");
    REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
    CHECK(back->type() == t.type());
    CHECK(back->shape() == t.shape());
    CHECK(*back == t);
  }
  CHECK(tf::npy_bytes(tensor::scalar(1.0f)).find("'shape': (), }") != std::string::npos);
  CHECK(tf::npy_bytes(tensor::from_vector<float>({1}, {1})).find("'shape': (1,), }") != std::string::npos);
}

TEST_CASE("a Fortran-ordered array is read in row-major order") {
  // The 2 x 3 array [[1, 2, 3], [4, 5, 6]] stored column by column, as np.asfortranarray saves it.
  const std::string f = npy_file("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }",
                                 raw<int64_t>({1, 4, 2, 5, 3, 6}));
  auto t = tf::parse_npy(f, "f.npy");
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  CHECK(t->to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  // Rank 3: element (i, j, k) of a 2 x 2 x 2 array at i + 2j + 4k.
  std::vector<float> col(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) col[i + 2 * j + 4 * k] = static_cast<float>(100 * i + 10 * j + k);
  auto t3 = tf::parse_npy(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2, 2), }", raw(col)), "f3.npy");
  REQUIRE(t3.ok());
  CHECK(t3->to_vector<float>() == std::vector<float>{0, 1, 10, 11, 100, 101, 110, 111});
}

TEST_CASE("big-endian data, double quotes, spacing and format 2.0 are read") {
  std::string be = raw<int32_t>({1, 256});
  for (size_t k = 0; k < be.size(); k += 4) std::reverse(be.begin() + k, be.begin() + k + 4);
  auto t = tf::parse_npy(npy_file("{\"descr\":'>i4' ,'shape':(2 ,),'fortran_order':False}", be), "be.npy");
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  CHECK(t->to_vector<int32_t>() == std::vector<int32_t>{1, 256});
  auto v2 = tf::parse_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", raw<double>({3.5}), 2), "v2.npy");
  REQUIRE_MESSAGE(v2.ok(), v2.get_status().to_string());
  CHECK(v2->to_vector<double>() == std::vector<double>{3.5});
  // Any non-zero byte of a bool array is True, as numpy reads it.
  auto b = tf::parse_npy(npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x00\x02", 2)), "b.npy");
  REQUIRE(b.ok());
  CHECK(b->to_vector<bool>() == std::vector<bool>{false, true});
}

TEST_CASE("malformed files are refused naming the file and what is wrong") {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  check_error(tf::parse_npy("PK\x03\x04 not numpy", "x.npy"), "x.npy: not a .npy file");
  check_error(tf::parse_npy(npy_file(dict, raw<float>({1})), "short.npy"),
              "short.npy: .npy data is 4 bytes; <f4 [2] takes 8");
  check_error(tf::parse_npy(npy_file(dict, raw<float>({1, 2, 3})), "long.npy"), ".npy data is 12 bytes");
  check_error(tf::parse_npy(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", "abcd"), "h.npy"),
              "h.npy: .npy element type '<f2'");
  check_error(tf::parse_npy(npy_file("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "12345678"), "o.npy"),
              "element type '|O'");
  check_error(tf::parse_npy(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "1234"), "s.npy"),
              "s.npy: .npy header: expected a string, True, False or a tuple of ints as the value of 'descr'");
  check_error(tf::parse_npy(npy_file("{'descr': '<f4', 'shape': (2,), }", raw<float>({1, 2})), "nf.npy"),
              "nf.npy: .npy header lacks 'fortran_order'");
  check_error(tf::parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", ""), "neg.npy"),
              "a non-negative int in 'shape'");
  check_error(tf::parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) ", ""), "open.npy"),
              "open.npy: .npy header: expected ',' or '}'");
  std::string v9 = npy_file(dict, raw<float>({1, 2}));
  v9[6] = 9;
  check_error(tf::parse_npy(v9, "v9.npy"), "v9.npy: .npy format version 9.0");
  std::string cut = npy_file(dict, "");
  check_error(tf::parse_npy(cut.substr(0, 30), "cut.npy"), "cut.npy: .npy header says 118 bytes");
  check_error(tf::read_npy("/nonexistent/in.npy"), "/nonexistent/in.npy: cannot open");
}

TEST_CASE("write_npy writes the file whole and read_npy reads it back") {
  caflow::testing::temp_dir dir("caflow_npy_");
  const tensor t = tensor::from_vector<float>({0.5f, -1, 3}, {3, 1});
  REQUIRE(tf::write_npy(dir.file("out.npy"), t).ok());
  CHECK_FALSE(std::filesystem::exists(dir.file("out.npy.tmp")));
  auto back = tf::read_npy(dir.file("out.npy"));
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(*back == t);
  check_error(tf::write_npy(dir.file("missing/out.npy"), t), "missing/out.npy.tmp: cannot create");
}
