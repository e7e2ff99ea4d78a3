#pragma once
// The attrs the 3-D convolutions and poolings share (Conv3D and its backprops, MaxPool3D,
// AvgPool3D and theirs): data_format NDHWC or NCDHW, padding SAME or VALID, and 5-entry lists
// (strides, dilations, ksize) whose batch and channel entries must be 1. Errors carry no node
// name: callers add it.
#include <array>
#include <cstdint>

#include "graph/ir/graph_def.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow {

struct volume_layout {
  bool channels_first = false;  // NCDHW
  conv_padding padding = conv_padding::valid;
};
status_or<volume_layout> parse_volume_layout(const node_def& n);

// The planes, rows and columns entries of the 5-entry list attr `attr`, each at least 1; a
// batch or channel entry other than 1 is unimplemented.
status_or<std::array<int64_t, 3>> spatial_triple(const node_def& n, const char* attr,
                                                 bool channels_first);

}  // namespace caflow
