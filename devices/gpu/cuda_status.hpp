#pragma once
// CUDA, cuBLAS and cuDNN results as caflow statuses, naming the call that failed.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "graph/core/status.hpp"

namespace caflow {

status cuda_status(cudaError_t e, const char* what);
status cublas_status(cublasStatus_t e, const char* what);
status cudnn_status(cudnnStatus_t e, const char* what);

}  // namespace caflow

// Returns (or, in a kernel, sets) the error of a failed CUDA-family call.
#define CAFLOW_CUDA_RETURN_IF_ERROR(call) CAFLOW_RETURN_IF_ERROR(::caflow::cuda_status((call), #call))
#define CAFLOW_CUDA_OP_REQUIRES(ctx, call) CAFLOW_OP_REQUIRES_OK(ctx, ::caflow::cuda_status((call), #call))
#define CAFLOW_CUBLAS_OP_REQUIRES(ctx, call) \
  CAFLOW_OP_REQUIRES_OK(ctx, ::caflow::cublas_status((call), #call))
#define CAFLOW_CUDNN_OP_REQUIRES(ctx, call) \
  CAFLOW_OP_REQUIRES_OK(ctx, ::caflow::cudnn_status((call), #call))
