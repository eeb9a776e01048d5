// Compiled by nvcc through cuda_library (cuda_binary and cuda_test wrap it).
// With the fixtures of integration/fixtures, "nvcc" is a script that compiles
// this file as C++ for the host, so only the host path runs: saxpy() calls the
// same __host__ __device__ function the kernel uses.
#include "saxpy.h"

__host__ __device__ static float saxpy_one(float a, float x, float y) { return a * x + y; }

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i) y[i] = saxpy_one(a, x[i], y[i]);
}

extern "C" void saxpy(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i) y[i] = saxpy_one(a, x[i], y[i]);
}
