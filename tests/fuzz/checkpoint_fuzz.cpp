// Checkpoint files as a restoring task finds them on disk: the input is written to an index
// file and a shard file of a private directory, then read back with read_index and
// read_tensors. The input is also taken as a file name for step_of_file_name.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz/archive_inputs.hpp"
#include "graph/ir/checkpoint_file.hpp"

namespace {

// Removed when the process exits. (An atexit handler registered while the static below was
// being built would run after the static's destructor, and removed nothing.)
struct private_directory {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("caflow-checkpoint-fuzz-" + std::to_string(::getpid()));
  private_directory() { std::filesystem::create_directories(path); }
  ~private_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

const std::filesystem::path& directory() {
  static const private_directory dir;
  return dir.path;
}

void write(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  (void)checkpoint::step_of_file_name(raw);
  (void)checkpoint::is_index_file_name(raw);
  fuzz::for_raw_and_resealed(data, size, [](std::string_view bytes) {
    const auto index = directory() / checkpoint::index_file_name(7);
    write(index, bytes);
    (void)checkpoint::read_index(index.string());
    const auto shard = directory() / checkpoint::shard_file_name(7, 0, 1);
    write(shard, bytes);
    if (auto tensors = checkpoint::read_tensors(shard.string()); tensors.ok())
      for (const auto& [name, t] : *tensors) (void)t.debug_string(4);
  });
  return 0;
}
