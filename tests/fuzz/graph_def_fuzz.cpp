// GraphDef archives as a master receives them from a client and a worker from its master
// (register_graph_request::graph): deserialize_graph on arbitrary bytes.
#include "fuzz/archive_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  fuzz::for_raw_and_resealed(data, size, [](std::string_view bytes) {
    auto g = deserialize_graph(bytes);
    if (!g.ok()) return;
    fuzz::check_stable(
        *g, [](const graph_def& x) { return serialize_graph(x); },
        [](std::string_view b) { return deserialize_graph(b); }, "graph_def");
  });
  return 0;
}
