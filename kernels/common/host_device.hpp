#pragma once
// CAFLOW_HOST_DEVICE marks a function that host code and CUDA device code both call: element
// arithmetic a CPU kernel and a GPU kernel must agree on, defined once. A header that uses it
// stays plain C++ (no Eigen, no CAF, no caflow headers but others of this kind), so a .cu
// file may include it without slowing nvcc down.
#ifdef __CUDACC__
#define CAFLOW_HOST_DEVICE __host__ __device__
#else
#define CAFLOW_HOST_DEVICE
#endif
