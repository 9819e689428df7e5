/**
 * \file clinic_wait.cuh
 * \brief The one GPU-side wait every Clinic program uses: keep a kernel busy
 *        for a set time, so that "the kernel is still running" is true on
 *        every run and on every GPU, not only on a slow one.
 *
 * Several lessons (chapters 08, 09, 18, 19 and the copy lab) are about what
 * the host sees while a kernel has not finished yet. A kernel that does real
 * work finishes in microseconds on a fast GPU, so the race would be lost or
 * won by luck. These programs call clinic_gpu_wait_ns() instead: it reads the
 * GPU's nanosecond clock (the `%globaltimer` register, which counts wall time
 * whatever the SM clock speed is) and loops until the time has passed.
 *
 * It is the only inline PTX in the Clinic, and it lives here so that no lesson
 * has to show it. The PyCUDA twins include this same file through
 * `SourceModule(..., include_dirs=[common])`.
 */
#ifndef CLINIC_WAIT_CUH
#define CLINIC_WAIT_CUH

/** Nanoseconds on the GPU's global timer (wall time, the same on every SM). */
__device__ static inline unsigned long long clinic_gpu_now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/**
 * Busy-waits until \p ns nanoseconds have passed since \p start_ns, a
 * clinic_gpu_now_ns() reading: a kernel that did its work first still lasts
 * \p ns in all.
 */
__device__ static inline void
clinic_gpu_wait_since_ns(unsigned long long start_ns, unsigned long long ns)
{
    while (clinic_gpu_now_ns() - start_ns < ns) {
    }
}

/** Busy-waits \p ns nanoseconds from now: `clinic_gpu_wait_ns(200000000ull)`
    is 200 ms. */
__device__ static inline void clinic_gpu_wait_ns(unsigned long long ns)
{
    clinic_gpu_wait_since_ns(clinic_gpu_now_ns(), ns);
}

#endif /* CLINIC_WAIT_CUH */
