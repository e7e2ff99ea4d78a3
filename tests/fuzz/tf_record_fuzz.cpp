// TFRecord-framed files, as TensorBoard event files are read back (graph/tf/record_file.hpp).
// The framing is canonical, so accepted bytes must frame again to exactly themselves. The seeds
// (corpus/tf_record/seed-*) are a file of two records, an empty record, and torn ones.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "graph/tf/record_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto records = tf::parse_records(input, "fuzz.tfrecord");
  if (!records.ok()) return 0;
  std::string framed;
  for (const std::string& r : *records) tf::append_record(framed, r);
  if (framed != input) {
    std::fprintf(stderr, "%zu accepted records frame to %zu bytes, not the %zu read\n", records->size(),
                 framed.size(), input.size());
    std::abort();
  }
  return 0;
}
