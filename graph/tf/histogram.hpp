#pragma once
// A histogram (graph/util/histogram.hpp) as TensorFlow's HistogramProto.
#include "graph/util/histogram.hpp"

namespace caflow::tfproto {
class HistogramProto;
}

namespace caflow::tf {

void histogram_to_proto(const histogram& h, tfproto::HistogramProto* out);

}  // namespace caflow::tf
