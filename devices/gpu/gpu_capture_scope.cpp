#include "devices/gpu/gpu_capture_scope.hpp"

namespace caflow {
namespace {

thread_local gpu_capture_scope* current_scope = nullptr;

}  // namespace

gpu_capture_scope* gpu_capture_scope::current() { return current_scope; }

void gpu_capture_scope::enter(gpu_capture_scope* s) {
  s->outer = current_scope;
  current_scope = s;
}

void gpu_capture_scope::leave(gpu_capture_scope* s) { current_scope = s->outer; }

}  // namespace caflow
