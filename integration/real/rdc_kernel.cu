#include <cuda_runtime.h>

#include "rdc.h"
#include "rdc_device.cuh"

__global__ void rdc_kernel(int n, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = rdc_scale(y[i], i);
}

extern "C" int rdc_scale_gpu(int n, float *y) {
  float *dy = 0;
  cudaError_t e = cudaMalloc(&dy, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    rdc_kernel<<<(n + 255) / 256, 256>>>(n, dy);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dy);
  return (int)e;
}
