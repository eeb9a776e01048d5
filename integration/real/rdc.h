#ifndef RDC_H
#define RDC_H
#ifdef __cplusplus
extern "C" {
#endif
/* y[i] *= i + 1 on the GPU, by a kernel whose __device__ function is in
 * another file; returns the cudaError_t of the first failing call. */
int rdc_scale_gpu(int n, float *y);
#ifdef __cplusplus
}
#endif
#endif
