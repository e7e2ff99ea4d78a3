// ListDiff, UniqueWithCounts and Bincount pick or count values: no gradient flows through them
// (as in TF).
#include "graph/client/gradients/gradients.hpp"

namespace caflow {

CAFLOW_REGISTER_NO_GRADIENT("ListDiff");
CAFLOW_REGISTER_NO_GRADIENT("UniqueWithCounts");
CAFLOW_REGISTER_NO_GRADIENT("Bincount");

}  // namespace caflow
