#include "kernels/rendezvous.hpp"

namespace caflow {

rendezvous::~rendezvous() = default;

}  // namespace caflow
