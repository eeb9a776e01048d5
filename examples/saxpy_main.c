#include <stdio.h>

#include "cuda_runtime_api.h"
#include "saxpy.h"

int main(void) {
  float x[4] = {0, 1, 2, 3}, y[4] = {1, 1, 1, 1};
  int version = 0;
  saxpy(4, 2.0f, x, y);
  cudaRuntimeGetVersion(&version);
  printf("saxpy: 2*x+y = %g %g %g %g (CUDA runtime %d)\n", y[0], y[1], y[2], y[3], version);
  return 0;
}
