#include "graph/client/data/fashion_mnist.hpp"

#include <cstdint>
#include <filesystem>

#include "graph/client/data/gzip_file.hpp"

namespace caflow::data {
namespace {

constexpr uint32_t idx_images_magic = 0x00000803;  // unsigned bytes, 3 dims
constexpr uint32_t idx_labels_magic = 0x00000801;  // unsigned bytes, 1 dim

uint32_t big_endian_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

std::string hex(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

// The dims of an IDX file of `rank` dims with the given magic, after checking that the
// payload is exactly as long as they say (element bytes of 1).
status_or<std::vector<int64_t>> idx_dims(const std::vector<uint8_t>& bytes, const std::string& path,
                                         uint32_t magic, int rank, const char* what) {
  const size_t header = 4 + 4 * static_cast<size_t>(rank);
  if (bytes.size() < 4)
    return errors::data_loss("'", path, "' is truncated: ", static_cast<uint64_t>(bytes.size()),
                             " bytes, too short for an IDX magic number");
  const uint32_t got = big_endian_u32(bytes.data());
  if (got != magic) {
    const char* hint = got == idx_images_magic   ? " (an image file given for labels?)"
                       : got == idx_labels_magic ? " (a label file given for images?)"
                                                 : "";
    return errors::data_loss("'", path, "' has magic number ", hex(got), ", not ", hex(magic),
                             " of an IDX ", what, " file", hint);
  }
  if (bytes.size() < header)
    return errors::data_loss("'", path, "' is truncated: its ", rank, "-dim IDX header needs ",
                             static_cast<uint64_t>(header), " bytes, the file has ",
                             static_cast<uint64_t>(bytes.size()));
  std::vector<int64_t> dims;
  std::string shape;
  // Three u32 dims can exceed 64 bits: such a header is one no file can satisfy.
  unsigned __int128 payload = 1;
  for (int i = 0; i < rank; ++i) {
    dims.push_back(big_endian_u32(bytes.data() + 4 + 4 * i));
    payload *= static_cast<uint64_t>(dims.back());
    shape += (shape.empty() ? "" : " x ") + std::to_string(dims.back());
  }
  const uint64_t have = bytes.size() - header;
  if (payload != have) {
    const std::string need = payload > UINT64_MAX ? std::string("more than 2^64")
                                                  : std::to_string(static_cast<uint64_t>(payload));
    return errors::data_loss("'", path, "' is ", payload > have ? "truncated" : "too long", ": ",
                             what, " of ", shape, " need ", need,
                             " bytes after the header, the file has ", have);
  }
  return dims;
}

}  // namespace

status_or<tensor> read_idx_images(const std::string& path) {
  CAFLOW_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_gzip_file(path));
  CAFLOW_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          idx_dims(bytes, path, idx_images_magic, 3, "images"));
  tensor images(dtype::float32, tensor_shape{dims[0], dims[1], dims[2], 1});
  const uint8_t* pixels = bytes.data() + 16;
  float* out = images.data<float>();
  const int64_t n = images.num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(pixels[i]) * (1.0f / 255.0f);
  return images;
}

status_or<tensor> read_idx_labels(const std::string& path, int num_classes) {
  CAFLOW_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_gzip_file(path));
  CAFLOW_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          idx_dims(bytes, path, idx_labels_magic, 1, "labels"));
  tensor labels(dtype::int32, tensor_shape{dims[0]});
  const uint8_t* values = bytes.data() + 8;
  int32_t* out = labels.data<int32_t>();
  for (int64_t i = 0; i < dims[0]; ++i) {
    if (values[i] >= num_classes)
      return errors::data_loss("'", path, "' has label ", int{values[i]}, " at index ", i,
                               ", outside 0..", num_classes - 1);
    out[i] = values[i];
  }
  return labels;
}

status_or<dataset> load_fashion_mnist(fashion_mnist_split split, const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return errors::not_found("Fashion-MNIST directory '", dir,
                             "' does not exist: install the dataset-fashion-mnist package (it "
                             "installs into ", fashion_mnist_default_dir,
                             ") or give the directory holding the four -ubyte.gz files");
  const std::string prefix = dir + "/" + (split == fashion_mnist_split::train ? "train" : "t10k");
  const std::string images_path = prefix + "-images-idx3-ubyte.gz";
  const std::string labels_path = prefix + "-labels-idx1-ubyte.gz";
  CAFLOW_ASSIGN_OR_RETURN(tensor images, read_idx_images(images_path));
  CAFLOW_ASSIGN_OR_RETURN(tensor labels, read_idx_labels(labels_path));
  if (images.dim(1) != 28 || images.dim(2) != 28)
    return errors::data_loss("'", images_path, "' holds ", images.dim(1), "x", images.dim(2),
                             " images, Fashion-MNIST's are 28x28");
  if (images.dim(0) != labels.dim(0))
    return errors::data_loss("'", images_path, "' holds ", images.dim(0), " images but '",
                             labels_path, "' ", labels.dim(0), " labels");
  return dataset::make(std::move(images), std::move(labels));
}

const char* fashion_mnist_class_name(int label) {
  static const char* const names[fashion_mnist_classes] = {
      "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return label >= 0 && label < fashion_mnist_classes ? names[label] : "?";
}

}  // namespace caflow::data
