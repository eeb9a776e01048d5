/* C, host compiler: cuda_runtime_api.h (whose host_defines.h is crt's). */
#include <stdio.h>

#include <cuda_runtime_api.h>

int main(void) {
  int rt = 0, n = -1;
  cudaError_t e = cudaRuntimeGetVersion(&rt);
  printf("cudart_c: cudaRuntimeGetVersion %d\n", rt);
  if (e != cudaSuccess || rt != CUDART_VERSION) return 1;
  e = cudaGetDeviceCount(&n);
  printf("cudart_c: cudaGetDeviceCount: CUDA error %d %s\n", (int)e, cudaGetErrorName(e));
  return !(e == cudaSuccess || e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver);
}
