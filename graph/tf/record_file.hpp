#pragma once
// TensorFlow's record framing (TFRecord), which event files use: each record is
//   uint64 length | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data
// all little-endian. The length's own CRC lets a reader tell a torn length from a huge record.
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::tf {

// Appends `data` framed as one record to `out`.
void append_record(std::string& out, std::string_view data);

// Every record of `bytes`, checking both CRCs. A torn or corrupt record is DATA_LOSS naming
// `origin`, the record's index and its byte offset; nothing after it is returned.
status_or<std::vector<std::string>> parse_records(std::string_view bytes, const std::string& origin);
status_or<std::vector<std::string>> read_records(const std::string& path);

}  // namespace caflow::tf
