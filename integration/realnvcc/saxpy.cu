// A real CUDA kernel when nvcc compiles this file (__NVCC__); the fixture
// toolkit's fake nvcc is a host C++ compiler, which gets the host loop.
#include <stdio.h>

#include "saxpy.h"

#define STR2(x) #x
#define STR(x) STR2(x)

#if defined(__NVCC__)
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static int failed(cudaError_t e, const char *what, char *msg, int len) {
  snprintf(msg, len, "%s: CUDA error %d %s: %s", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
  return (int)e;
}

extern "C" int saxpy_device(int n, float a, const float *x, float *y, char *msg, int len) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return failed(e, "cudaGetDeviceCount", msg, len);
  float *dx = 0, *dy = 0;
  size_t size = (size_t)n * sizeof(float);
  if ((e = cudaMalloc((void **)&dx, size)) != cudaSuccess) return failed(e, "cudaMalloc", msg, len);
  if ((e = cudaMalloc((void **)&dy, size)) != cudaSuccess) return failed(e, "cudaMalloc", msg, len);
  cudaMemcpy(dx, x, size, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, size, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  if ((e = cudaGetLastError()) != cudaSuccess) return failed(e, "saxpy_kernel launch", msg, len);
  if ((e = cudaMemcpy(y, dy, size, cudaMemcpyDeviceToHost)) != cudaSuccess) return failed(e, "cudaMemcpy", msg, len);
  cudaFree(dx);
  cudaFree(dy);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  snprintf(msg, len, "ran on %s (sm_%d%d), %d device(s)", prop.name, prop.major, prop.minor, count);
  return 0;
}

extern "C" const char *saxpy_compiler(void) { return "nvcc " STR(__CUDACC_VER_MAJOR__) "." STR(__CUDACC_VER_MINOR__); }
#else
extern "C" int saxpy_device(int n, float a, const float *x, float *y, char *msg, int len) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  snprintf(msg, len, "no real nvcc in this toolkit: computed on the host");
  return -1;
}

extern "C" const char *saxpy_compiler(void) { return "host compiler"; }
#endif
