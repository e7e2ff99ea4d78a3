// ShapeN and ConcatOffset compute on shapes: no gradient flows through them (as in TF).
#include "graph/client/gradients/gradients.hpp"

namespace caflow {

CAFLOW_REGISTER_NO_GRADIENT("ShapeN");
CAFLOW_REGISTER_NO_GRADIENT("ConcatOffset");

}  // namespace caflow
