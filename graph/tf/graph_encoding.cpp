#include "graph/tf/graph_encoding.hpp"

namespace caflow::tf {

const char* graph_encoding_name(graph_encoding e) {
  switch (e) {
    case graph_encoding::binary: return "binary";
    case graph_encoding::text: return "text";
    case graph_encoding::json: return "json";
  }
  return "?";
}

}  // namespace caflow::tf
