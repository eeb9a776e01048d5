#include <cuda_runtime.h>

#include "saxpy.h"

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_gpu(int n, float a, const float *x, float *y) {
  float *dx = 0, *dy = 0;
  cudaError_t e = cudaMalloc(&dx, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMalloc(&dy, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  return (int)e;
}
