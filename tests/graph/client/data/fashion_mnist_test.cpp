// Fashion-MNIST loading: tiny IDX files written (gzip-compressed, through data::write_gzip_file)
// into a temporary directory for values, scaling and every corruption's message; then the
// real dataset when it is installed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "graph/client/data/fashion_mnist.hpp"
#include "graph/client/data/gzip_file.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::temp_dir;
namespace fs = std::filesystem;

namespace {


void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(v >> shift));
}

std::vector<uint8_t> idx_images(uint32_t n, uint32_t rows, uint32_t cols,
                                const std::vector<uint8_t>& pixels, uint32_t magic = 0x803) {
  std::vector<uint8_t> out;
  put_u32(out, magic);
  put_u32(out, n);
  put_u32(out, rows);
  put_u32(out, cols);
  out.insert(out.end(), pixels.begin(), pixels.end());
  return out;
}

std::vector<uint8_t> idx_labels(const std::vector<uint8_t>& labels, uint32_t magic = 0x801) {
  std::vector<uint8_t> out;
  put_u32(out, magic);
  put_u32(out, uint32_t(labels.size()));
  out.insert(out.end(), labels.begin(), labels.end());
  return out;
}

void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  REQUIRE(data::write_gzip_file(path, bytes).ok());
}

// A complete synthetic split of n 28x28 images: image i's pixel p is (i + p) % 256.
void write_split(const temp_dir& dir, const std::string& prefix, uint32_t n,
                 const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> pixels;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t p = 0; p < 784; ++p) pixels.push_back(uint8_t((i + p) % 256));
  write_gz(dir.file(prefix + "-images-idx3-ubyte.gz"), idx_images(n, 28, 28, pixels));
  write_gz(dir.file(prefix + "-labels-idx1-ubyte.gz"), idx_labels(labels));
}

}  // namespace

TEST_CASE("IDX images become float32 [N, rows, cols, 1] in [0, 1]; labels int32") {
  temp_dir dir("caflow_fmnist_");
  write_gz(dir.file("img.gz"), idx_images(2, 2, 3, {0, 255, 51, 102, 153, 204, 1, 2, 3, 4, 5, 6}));
  write_gz(dir.file("lab.gz"), idx_labels({9, 0, 3}));
  auto images = data::read_idx_images(dir.file("img.gz"));
  REQUIRE_MESSAGE(images.ok(), images.get_status().to_string());
  // 51 / 255 = 0.2, 102 / 255 = 0.4, ...
  check_tensor(*images, {2, 2, 3, 1},
               std::vector<float>{0, 1, 0.2f, 0.4f, 0.6f, 0.8f, 1 / 255.0f, 2 / 255.0f, 3 / 255.0f,
                                  4 / 255.0f, 5 / 255.0f, 6 / 255.0f});
  auto labels = data::read_idx_labels(dir.file("lab.gz"));
  REQUIRE(labels.ok());
  check_tensor(*labels, {3}, std::vector<int32_t>{9, 0, 3});
  // Uncompressed files are read as they are.
  const auto raw = idx_labels({1, 2});
  std::ofstream(dir.file("plain"), std::ios::binary)
      .write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size()));
  check_tensor(*data::read_idx_labels(dir.file("plain")), {2}, std::vector<int32_t>{1, 2});
}

TEST_CASE("load_fashion_mnist reads a split's two files from the given directory") {
  temp_dir dir("caflow_fmnist_");
  write_split(dir, "train", 3, {9, 0, 5});
  write_split(dir, "t10k", 1, {2});
  auto train = data::load_fashion_mnist(data::fashion_mnist_split::train, dir.path.string());
  REQUIRE_MESSAGE(train.ok(), train.get_status().to_string());
  CHECK(train->size() == 3);
  CHECK(train->images().shape() == tensor_shape{3, 28, 28, 1});
  check_tensor(train->labels(), {3}, std::vector<int32_t>{9, 0, 5});
  const float* px = train->images().data<float>();
  CHECK(px[0] == 0.0f);                           // image 0, pixel 0: 0
  CHECK(px[255] == 1.0f);                         // image 0, pixel 255: 255
  CHECK(px[784 + 783] == doctest::Approx(16 / 255.0f));  // image 1, pixel 783: 784 % 256 = 16
  const tensor flat = train->flat_images();
  CHECK(flat.shape() == tensor_shape{3, 784});
  CHECK(flat.shares_buffer_with(train->images()));
  auto test = data::load_fashion_mnist(data::fashion_mnist_split::test, dir.path.string());
  REQUIRE(test.ok());
  check_tensor(test->labels(), {1}, std::vector<int32_t>{2});
  CHECK(std::string(data::fashion_mnist_class_name(9)) == "Ankle boot");
  CHECK(std::string(data::fashion_mnist_class_name(0)) == "T-shirt/top");
  CHECK(std::string(data::fashion_mnist_class_name(10)) == "?");
}

TEST_CASE("every corruption is an error naming the file and what is wrong") {
  temp_dir dir("caflow_fmnist_");
  const std::string f = dir.file("x.gz");
  SUBCASE("missing directory: says how to install the dataset") {
    check_error(data::load_fashion_mnist(data::fashion_mnist_split::train, dir.file("nowhere")),
                "Fashion-MNIST directory '" + dir.file("nowhere") +
                    "' does not exist: install the dataset-fashion-mnist package");
  }
  SUBCASE("missing file") {
    auto r = data::load_fashion_mnist(data::fashion_mnist_split::test, dir.path.string());
    check_error(r, "cannot open '" + dir.file("t10k-images-idx3-ubyte.gz") +
                       "': No such file or directory");
    CHECK(r.get_status().code() == error_code::not_found);
  }
  SUBCASE("a label file given for images, and the other way round") {
    write_gz(f, idx_labels({1}));
    check_error(data::read_idx_images(f), "'" + f + "' has magic number 0x00000801, not 0x00000803 "
                                          "of an IDX images file (a label file given for images?)");
    write_gz(f, idx_images(1, 1, 1, {7}));
    check_error(data::read_idx_labels(f), "has magic number 0x00000803, not 0x00000801 of an IDX "
                                          "labels file (an image file given for labels?)");
  }
  SUBCASE("a foreign magic number") {
    write_gz(f, idx_labels({1}, 0x12345678));
    check_error(data::read_idx_labels(f), "has magic number 0x12345678, not 0x00000801 of an IDX "
                                          "labels file");
  }
  SUBCASE("too short for a magic number") {
    write_gz(f, {0, 0, 8});
    check_error(data::read_idx_labels(f), "'" + f + "' is truncated: 3 bytes, too short for an IDX "
                                          "magic number");
  }
  SUBCASE("truncated header") {
    auto bytes = idx_images(1, 1, 1, {});
    bytes.resize(10);
    write_gz(f, bytes);
    auto r = data::read_idx_images(f);
    check_error(r, "'" + f + "' is truncated: its 3-dim IDX header needs 16 bytes, the file has 10");
    CHECK(r.get_status().code() == error_code::data_loss);
  }
  SUBCASE("truncated pixels") {
    write_gz(f, idx_images(2, 2, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    check_error(data::read_idx_images(f), "'" + f + "' is truncated: images of 2 x 2 x 3 need 12 "
                                          "bytes after the header, the file has 11");
  }
  SUBCASE("a header no file can satisfy") {
    write_gz(f, idx_images(0xffffffff, 0xffffffff, 0xffffffff, {1}));
    check_error(data::read_idx_images(f), "need more than 2^64 bytes after the header, the file has 1");
  }
  SUBCASE("bytes after the last label") {
    auto bytes = idx_labels({1, 2});
    bytes.push_back(3);
    write_gz(f, bytes);
    check_error(data::read_idx_labels(f), "'" + f + "' is too long: labels of 2 need 2 bytes after "
                                          "the header, the file has 3");
  }
  SUBCASE("a label outside 0..9") {
    write_gz(f, idx_labels({9, 10}));
    check_error(data::read_idx_labels(f), "'" + f + "' has label 10 at index 1, outside 0..9");
  }
  SUBCASE("a gzip stream cut short") {
    write_gz(f, idx_images(4, 28, 28, std::vector<uint8_t>(4 * 784, 7)));
    std::ifstream in(f, std::ios::binary);
    std::vector<char> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    REQUIRE(gz.size() > 20);
    std::ofstream(f, std::ios::binary | std::ios::trunc).write(gz.data(), std::streamsize(gz.size() / 2));
    auto r = data::read_idx_images(f);
    check_error(r, "'" + f + "' is not readable gzip data");
    CHECK(r.get_status().code() == error_code::data_loss);
  }
  SUBCASE("images and labels disagree on the count") {
    write_split(dir, "train", 3, {1, 2});
    check_error(data::load_fashion_mnist(data::fashion_mnist_split::train, dir.path.string()),
                "'" + dir.file("train-images-idx3-ubyte.gz") + "' holds 3 images but '" +
                    dir.file("train-labels-idx1-ubyte.gz") + "' 2 labels");
  }
  SUBCASE("images that are not 28x28") {
    write_gz(dir.file("train-images-idx3-ubyte.gz"), idx_images(1, 2, 3, {1, 2, 3, 4, 5, 6}));
    write_gz(dir.file("train-labels-idx1-ubyte.gz"), idx_labels({1}));
    check_error(data::load_fashion_mnist(data::fashion_mnist_split::train, dir.path.string()),
                "holds 2x3 images, Fashion-MNIST's are 28x28");
  }
}

TEST_CASE("the installed Fashion-MNIST dataset") {
  if (!fs::is_directory(data::fashion_mnist_default_dir)) {
    MESSAGE("skipped: ", data::fashion_mnist_default_dir,
            " is missing (install the dataset-fashion-mnist package)");
    return;
  }
  auto train = data::load_fashion_mnist(data::fashion_mnist_split::train);
  REQUIRE_MESSAGE(train.ok(), train.get_status().to_string());
  auto test = data::load_fashion_mnist(data::fashion_mnist_split::test);
  REQUIRE_MESSAGE(test.ok(), test.get_status().to_string());
  CHECK(train->size() == 60000);
  CHECK(test->size() == 10000);
  CHECK(train->images().shape() == tensor_shape{60000, 28, 28, 1});
  // Both splits start with an ankle boot.
  CHECK(train->labels().data<int32_t>()[0] == 9);
  CHECK(test->labels().data<int32_t>()[0] == 9);
  // Balanced classes: 6000 of each in train, 1000 in test.
  for (const auto& [d, per_class] : {std::pair{&*train, 6000}, std::pair{&*test, 1000}}) {
    std::vector<int> counts(10, 0);
    for (int32_t l : d->labels().to_vector<int32_t>()) ++counts[size_t(l)];
    CHECK(counts == std::vector<int>(10, per_class));
  }
  // Pixels span the whole [0, 1] range, in steps of 1/255.
  const auto px = train->images().to_vector<float>();
  CHECK(*std::min_element(px.begin(), px.end()) == 0.0f);
  CHECK(*std::max_element(px.begin(), px.end()) == 1.0f);
}
