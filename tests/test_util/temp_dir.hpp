#pragma once
// A fresh, empty directory under the system's temporary one, named after `prefix`, this process
// and a counter (so several in one test differ), removed with everything in it when the object
// goes.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace caflow::testing {

struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& prefix) {
    static std::atomic<int> made{0};
    path = std::filesystem::temp_directory_path() /
           (prefix + std::to_string(::getpid()) + "_" + std::to_string(made++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  // The path of `name` inside it.
  std::string file(const std::string& name) const { return (path / name).string(); }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace caflow::testing
