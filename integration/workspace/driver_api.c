/* A driver-API program: linked against libcuda.so's stub, it must load the
 * host's driver (libcuda.so.1) at run time, never the stub, which answers
 * CUDA_ERROR_STUB_LIBRARY (34) to everything. */
#include <stdio.h>

int cuInit(unsigned int flags);

int main(void) {
  int rc = cuInit(0);
  printf("cuInit: %d\n", rc);
  return rc == 34;
}
