#include <stdio.h>

#include "saxpy.h"

/* Passes when saxpy ran on a GPU and is right, when the CUDA runtime
 * reports that there is no device (error 100, cudaErrorNoDevice) or no
 * driver (35), or on the fixture toolkit's host path. Prints what happened. */
int main(void) {
  enum { N = 1000 };
  float x[N], y[N];
  char msg[256] = "";
  for (int i = 0; i < N; ++i) x[i] = (float)i, y[i] = 1.0f;
  int rc = saxpy_device(N, 2.0f, x, y, msg, sizeof msg);
  printf("saxpy_test: built by %s; %s (status %d)\n", saxpy_compiler(), msg, rc);
  if (rc == 100 || rc == 35) return 0;
  if (rc != 0 && rc != -1) return 1;
  for (int i = 0; i < N; ++i) {
    if (y[i] != 2.0f * i + 1.0f) {
      fprintf(stderr, "y[%d] = %g, want %g\n", i, y[i], 2.0f * i + 1.0f);
      return 1;
    }
  }
  printf("saxpy_test: y = 2x + 1 for %d elements\n", N);
  return 0;
}
