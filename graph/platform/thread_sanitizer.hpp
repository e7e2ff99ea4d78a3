#pragma once
// Hand-overs ThreadSanitizer cannot see, marked by hand. A tensor's bytes that travel between
// threads inside a CAF message are ordered by CAF's mailbox, which TSan does not see in
// Debian's uninstrumented libcaf; where such bytes are then read outside any CAF-driven stack
// (scripts/sanitizers/tsan.supp), the sender releases and the receiver acquires the bytes'
// address. Nothing in other builds.
#if defined(__SANITIZE_THREAD__)
#define CAFLOW_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CAFLOW_TSAN 1
#endif
#endif

#ifdef CAFLOW_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace caflow {

#ifdef CAFLOW_TSAN
inline void tsan_release(const void* addr) { __tsan_release(const_cast<void*>(addr)); }
inline void tsan_acquire(const void* addr) { __tsan_acquire(const_cast<void*>(addr)); }
#else
inline void tsan_release(const void*) {}
inline void tsan_acquire(const void*) {}
#endif

}  // namespace caflow
