// Compiled by the nvcc toolchain (cuda_library): the fake nvcc of the
// fixtures compiles it as C++ with the C++ toolchain's compiler.
#include <crt/host_config.h>

#include "cuda_runtime_api.h"
#include "kernel.h"

__global__ void scale(float *x, float a, int n) {
  for (int i = 0; i < n; ++i) x[i] *= a;
}

extern "C" float kernel_sum(int n) {
  float x[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; ++i) x[i] = (float)i;
  scale(x, 2.0f, n);
  float s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}

extern "C" const char *kernel_crt_arch(void) { return __CUDA_FAKE_CRT_ARCH; }
