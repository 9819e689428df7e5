/**
 * \file scale.cuh
 * \brief Chapter 44: the header that both programs and scale.cu include. It
 *        defines a `__constant__` variable, so every .cu file that includes
 *        it gets a variable of its own.
 */
#ifndef SCALE_CUH
#define SCALE_CUH

/* The factor scale_on_gpu() multiplies by. This line is a definition, not a
   declaration: built without -rdc (nvcc's default), each .cu file that
   includes the header has its own scale_factor, on the GPU and on the host,
   and nothing links them together. */
__constant__ int scale_factor;

/* In scale.cu: sets scale.cu's scale_factor, the one its kernel reads. */
void set_scale_factor(int factor);

/* In scale.cu: multiplies the n ints at dev by scale_factor, on the GPU. */
void scale_on_gpu(int *dev, int n);

#endif /* SCALE_CUH */
