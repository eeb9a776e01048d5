#include <stdio.h>

#include "cuda_runtime_api.h"
#include "saxpy.h"

int main(void) {
  float x[4] = {0, 1, 2, 3}, y[4] = {1, 1, 1, 1};
  const float want[4] = {1, 3, 5, 7};
  int version = 0, failed = 0;
  saxpy(4, 2.0f, x, y);
  for (int i = 0; i < 4; ++i) {
    if (y[i] != want[i]) {
      fprintf(stderr, "y[%d] = %g, want %g\n", i, y[i], want[i]);
      failed = 1;
    }
  }
  if (cudaRuntimeGetVersion(&version) != 0 || version < 12000) {
    fprintf(stderr, "cudaRuntimeGetVersion: %d, want a CUDA 12 runtime\n", version);
    failed = 1;
  }
  if (!failed) printf("ok: saxpy, CUDA runtime %d\n", version);
  return failed;
}
