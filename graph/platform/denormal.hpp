#pragma once
// Denormal floats flushed to zero, as TensorFlow runs its CPU kernels (tensorflow/core/platform/
// denormal.h: every thread of its pools sets flush-to-zero and denormals-are-zero). Denormals
// are rare in results but common in training state: Adam's second moment decays toward them
// once gradients get small, and each op on a denormal takes a microcode assist on x86 (about a
// hundred cycles), which made ApplyAdam as costly as all of an MLP's GEMMs. Results that would
// be denormal become zero, and denormal inputs read as zero.
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace caflow {

// Sets flush-to-zero and denormals-are-zero for the calling thread until destroyed, then puts
// the previous mode back. A no-op where the CPU has no such mode.
class scoped_flush_denormal {
 public:
#if defined(__SSE__)
  // Writing the control register costs far more than reading it: threads that already flush
  // (the CPU device's pools) only read it.
  scoped_flush_denormal() : saved_(_mm_getcsr()) {
    if ((saved_ & flush_bits) != flush_bits) _mm_setcsr(saved_ | flush_bits);
  }
  ~scoped_flush_denormal() {
    if ((saved_ & flush_bits) != flush_bits) _mm_setcsr(saved_);
  }
#else
  scoped_flush_denormal() = default;
#endif
  scoped_flush_denormal(const scoped_flush_denormal&) = delete;
  scoped_flush_denormal& operator=(const scoped_flush_denormal&) = delete;

 private:
#if defined(__SSE__)
  static constexpr unsigned flush_bits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
  unsigned saved_;
#endif
};

}  // namespace caflow
