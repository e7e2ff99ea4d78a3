#include "apps/train/checkpoint_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace caflow::train_app {

status prepare_checkpoint_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st))
    return errors::invalid_argument("--checkpoint-dir '", dir, "' exists and is not a directory");
  if (!fs::exists(st) && !fs::create_directories(dir, ec) && ec)
    return errors::invalid_argument("--checkpoint-dir '", dir, "' cannot be created: ",
                                    ec.message());
  // access(W_OK) would pass for root on a read-only mount: only writing a file proves it.
  const std::string probe = (fs::path(dir) / (".caflow-write-probe-" + std::to_string(::getpid())))
                                .string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return errors::invalid_argument("--checkpoint-dir '", dir, "' is not writable: ",
                                    std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

}  // namespace caflow::train_app
