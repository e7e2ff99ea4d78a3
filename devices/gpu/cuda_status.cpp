#include "devices/gpu/cuda_status.hpp"

namespace caflow {

status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  if (e == cudaErrorMemoryAllocation)
    return errors::resource_exhausted(what, ": ", cudaGetErrorString(e));
  return errors::internal(what, ": ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

status cublas_status(cublasStatus_t e, const char* what) {
  if (e == CUBLAS_STATUS_SUCCESS) return {};
  return errors::internal(what, ": ", cublasGetStatusName(e), " (", cublasGetStatusString(e), ")");
}

status cudnn_status(cudnnStatus_t e, const char* what) {
  if (e == CUDNN_STATUS_SUCCESS) return {};
  return errors::internal(what, ": ", cudnnGetErrorString(e));
}

}  // namespace caflow
