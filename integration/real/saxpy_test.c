/* Compiled by the host compiler: includes cuda_runtime_api.h. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "saxpy.h"

int main(void) {
  int rt = 0, n = -1;
  cudaError_t e = cudaRuntimeGetVersion(&rt);
  printf("saxpy_test: cudaRuntimeGetVersion %d (%s), CUDART_VERSION %d\n", rt, cudaGetErrorName(e), CUDART_VERSION);
  if (e != cudaSuccess || rt != CUDART_VERSION) return 1;
  e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    /* No GPU or no driver: the runtime must say so with its error, not crash. */
    printf("saxpy_test: cudaGetDeviceCount: CUDA error %d %s\n", (int)e, cudaGetErrorName(e));
    return (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? 0 : 1;
  }
  float x[4] = {0, 1, 2, 3}, y[4] = {1, 1, 1, 1};
  int r = saxpy_gpu(4, 2.0f, x, y);
  printf("saxpy_test: %d device(s); saxpy: error %d, y = %g %g %g %g\n", n, r, y[0], y[1], y[2], y[3]);
  return !(n >= 1 && r == 0 && y[0] == 1 && y[1] == 3 && y[2] == 5 && y[3] == 7);
}
