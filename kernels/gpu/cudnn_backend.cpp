#include "kernels/gpu/cudnn_backend.hpp"

#include "devices/gpu/cuda_status.hpp"

namespace caflow::gpu {

namespace {
// cuDNN's status with the attribute's number (cudnn_graph.h lists the names by number).
status attribute_status(cudnnStatus_t e, const char* call, cudnnBackendAttributeName_t name) {
  if (e == CUDNN_STATUS_SUCCESS) return {};
  return errors::internal(call, "(attribute ", static_cast<int>(name),
                          "): ", cudnnGetErrorString(e));
}
}  // namespace

status_or<backend_descriptor> backend_descriptor::make(cudnnBackendDescriptorType_t type) {
  cudnnBackendDescriptor_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnBackendCreateDescriptor(type, &raw), "cudnnBackendCreateDescriptor"));
  backend_descriptor d;
  d.d_ = std::shared_ptr<void>(raw, cudnn_detail::backend_destroyer{});
  return d;
}

status set_attribute(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                     cudnnBackendAttributeType_t type, int64_t count, const void* values) {
  return attribute_status(cudnnBackendSetAttribute(d.get(), name, type, count, values),
                          "cudnnBackendSetAttribute", name);
}

status set_descriptor(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                      const backend_descriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  return set_attribute(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

status finalize(const backend_descriptor& d) {
  return cudnn_status(cudnnBackendFinalize(d.get()), "cudnnBackendFinalize");
}

status_or<int64_t> get_attribute(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                                 cudnnBackendAttributeType_t type, int64_t capacity, void* out) {
  int64_t count = 0;
  CAFLOW_RETURN_IF_ERROR(
      attribute_status(cudnnBackendGetAttribute(d.get(), name, type, capacity, &count, out),
                       "cudnnBackendGetAttribute", name));
  return count;
}

status_or<int64_t> get_int64(const backend_descriptor& d, cudnnBackendAttributeName_t name) {
  int64_t value = 0;
  CAFLOW_RETURN_IF_ERROR(get_attribute(d, name, CUDNN_TYPE_INT64, 1, &value).get_status());
  return value;
}

}  // namespace caflow::gpu
