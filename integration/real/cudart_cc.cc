// C++, host compiler: cuda_runtime.h (the C++ API over cuda_runtime_api.h).
#include <cstdio>

#include <cuda_runtime.h>

int main() {
  int rt = 0;
  if (cudaRuntimeGetVersion(&rt) != cudaSuccess || rt != CUDART_VERSION) return 1;
  std::printf("cudart_cc: cudaRuntimeGetVersion %d\n", rt);
  return 0;
}
