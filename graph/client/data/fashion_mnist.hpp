#pragma once
// Fashion-MNIST (Zalando's 28x28 grey-scale clothing images in 10 classes, a drop-in for
// MNIST) from its gzipped IDX files:
//
//   <dir>/train-images-idx3-ubyte.gz  train-labels-idx1-ubyte.gz   60000 examples
//   <dir>/t10k-images-idx3-ubyte.gz   t10k-labels-idx1-ubyte.gz    10000 examples
//
// Images become float32 [N, 28, 28, 1] (NHWC, one channel) scaled to [0, 1]; labels int32 [N]
// in 0..9. Every inconsistency (magic numbers, dimensions, image and label counts, a file cut
// short or too long, labels out of range) is an error naming the file and what is wrong.
#include <string>

#include "graph/client/data/dataset.hpp"

namespace caflow::data {

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* fashion_mnist_default_dir = "/usr/share/datasets/fashion-mnist";
inline constexpr int fashion_mnist_classes = 10;

enum class fashion_mnist_split { train, test };

// The split's images and labels from `dir`; a missing directory's error says how to get it.
status_or<dataset> load_fashion_mnist(fashion_mnist_split split,
                                      const std::string& dir = fashion_mnist_default_dir);

// One IDX image file (magic 0x00000803: unsigned bytes, 3 dims N x rows x cols), as float32
// [N, rows, cols, 1] with every byte divided by 255.
status_or<tensor> read_idx_images(const std::string& path);
// One IDX label file (magic 0x00000801: unsigned bytes, 1 dim N), as int32 [N]; every label
// must be below num_classes.
status_or<tensor> read_idx_labels(const std::string& path, int num_classes = fashion_mnist_classes);

// "T-shirt/top", "Trouser", ..., "Ankle boot"; "?" outside 0..9.
const char* fashion_mnist_class_name(int label);

}  // namespace caflow::data
