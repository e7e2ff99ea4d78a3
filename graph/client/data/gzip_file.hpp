#pragma once
// Whole-file gzip reading and writing (zlib), for dataset files such as Fashion-MNIST's IDX
// files. A file that is not gzip-compressed is read as it is, as zlib's gzread does.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::data {

// The decompressed bytes. Errors name the file: not_found when it cannot be opened,
// data_loss when the compressed stream is corrupt or cut short.
status_or<std::vector<uint8_t>> read_gzip_file(const std::string& path);

// Writes `bytes` gzip-compressed, replacing any existing file.
status write_gzip_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace caflow::data
