// NumPy .npy files, as caflow-run reads its --input files (graph/tf/npy.hpp). An accepted file
// must write back to bytes that read as the same tensor. The seeds (corpus/npy/seed-*) are
// small files of each element type, order and version, and broken ones, written by hand.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "graph/tf/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto t = tf::parse_npy(input, "fuzz.npy");
  if (!t.ok()) return 0;
  auto again = tf::parse_npy(tf::npy_bytes(*t), "again.npy");
  if (!again.ok() || !(*again == *t)) {
    std::fprintf(stderr, "an accepted .npy (%s) does not read back the same: %s\n",
                 t->debug_string().c_str(), again.ok() ? again->debug_string().c_str()
                                                        : again.get_status().to_string().c_str());
    std::abort();
  }
  return 0;
}
