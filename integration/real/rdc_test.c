/* The rdc program: the kernel (rdc_kernel.cu) calls a __device__ function of
 * rdc_device.cu. Runs it where there is a GPU; elsewhere the runtime must
 * report no device or no driver. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "rdc.h"

int main(void) {
  int rt = 0, n = -1;
  cudaRuntimeGetVersion(&rt);
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    printf("rdc_test: cudaRuntimeGetVersion %d; cudaGetDeviceCount: CUDA error %d %s\n", rt, (int)e, cudaGetErrorName(e));
    return (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? 0 : 1;
  }
  float y[4] = {1, 1, 1, 1};
  int r = rdc_scale_gpu(4, y);
  printf("rdc_test: cudaRuntimeGetVersion %d; %d device(s); rdc_scale: error %d, y = %g %g %g %g\n", rt, n, r, y[0], y[1], y[2], y[3]);
  return !(n >= 1 && r == 0 && y[0] == 1 && y[1] == 2 && y[2] == 3 && y[3] == 4);
}
