#pragma once
// Shared by the tests that run caflow-train as a child process.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "test_util/process.hpp"
#include "test_util/temp_dir.hpp"

namespace caflow::testing {

inline const char* const fashion_mnist_dir = "/usr/share/datasets/fashion-mnist";

// Whether the dataset is installed; says why the test is skipped when it is not.
inline bool have_fashion_mnist() {
  if (std::filesystem::exists(std::filesystem::path(fashion_mnist_dir) / "train-images-idx3-ubyte.gz"))
    return true;
  MESSAGE("skipped: Fashion-MNIST is not installed (scripts/setup.sh installs "
          "dataset-fashion-mnist)");
  return false;
}

// The exit code, or -1 when the process did not exit by itself in time.
inline int exit_code(child_process& p, std::chrono::milliseconds timeout) {
  const int raw = p.wait_exit(timeout);
  return raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace caflow::testing
