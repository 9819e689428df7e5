/**
 * \file libcuda.c
 * \brief A stand-in for the NVIDIA driver library (libcuda.so.1) that reports
 *        CUDA 12.2, older than any runtime this project builds with. Put on
 *        LD_LIBRARY_PATH, it makes every program take its "driver too old"
 *        path, on a machine with or without a GPU.
 */

/** Reports driver version 12.2, the only thing the runtime asks before giving up. */
int cuDriverGetVersion(int *version)
{
    *version = 12020;
    return 0;
}

/** Succeeds, so that the runtime gets as far as comparing versions. */
int cuInit(unsigned int flags)
{
    (void)flags;
    return 0;
}
