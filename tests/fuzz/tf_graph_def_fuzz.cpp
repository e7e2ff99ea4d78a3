// TensorFlow GraphDefs from outside the process (graph/tf/graph_def_import.hpp): the first byte
// picks the reader (0 binary, 1 text, 2 JSON; others wrap around), the rest is the file. A graph
// that reads must write as a binary GraphDef that reads back into the same bytes.
#include <cstdint>
#include <string_view>

#include "fuzz/archive_inputs.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/graph_def_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  if (size == 0) return 0;
  static constexpr tf::graph_encoding encodings[] = {
      tf::graph_encoding::binary, tf::graph_encoding::text, tf::graph_encoding::json};
  const tf::graph_encoding encoding = encodings[data[0] % 3];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (bool external : {false, true}) {
    const tf::import_options options{.const_values_external = external};
    auto g = tf::read_graph_def(bytes, encoding, "fuzz", options);
    if (!g.ok()) continue;
    const auto write = [](const graph_def& x) {
      auto out = tf::write_graph_def(x, tf::graph_encoding::binary);
      if (!out.ok()) {
        std::fprintf(stderr, "a TensorFlow GraphDef that reads does not write: %s\n",
                     out.get_status().to_string().c_str());
        std::abort();
      }
      return *out;
    };
    fuzz::check_stable(
        *g, write,
        [&](std::string_view b) { return tf::read_graph_def(b, tf::graph_encoding::binary, "fuzz", options); },
        "TensorFlow GraphDef");
  }
  return 0;
}
