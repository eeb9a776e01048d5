/* C, host compiler: NVIDIA's cuSPARSELt 0.8.1. cusparseLt.h includes cusparse.h (CUDA's libcusparse)
 * and cudart's driver_types.h and library_types.h, and declares its opaque types with alignas, which
 * C before C23 has only from <stdalign.h>: a C program includes it first.
 *
 * cusparseLtGetProperty needs no GPU: its MAJOR, MINOR and PATCH must be the header's. Every other call
 * starts with a handle, and cusparseLtInit needs a driver and a device: with one, the program prints
 * cusparseLtGetVersion; without (the tiers' machines), it prints cusparseLtInit's status and its name
 * from cusparseLtGetErrorName, and that is not a failure. */
#include <stdalign.h>
#include <stdio.h>

#include <cusparseLt.h>

int main(void) {
  int major = -1, minor = -1, patch = -1;
  if (cusparseLtGetProperty(MAJOR_VERSION, &major) != CUSPARSE_STATUS_SUCCESS ||
      cusparseLtGetProperty(MINOR_VERSION, &minor) != CUSPARSE_STATUS_SUCCESS ||
      cusparseLtGetProperty(PATCH_LEVEL, &patch) != CUSPARSE_STATUS_SUCCESS) return 1;
  printf("cusparselt: cusparseLtGetProperty %d.%d.%d, CUSPARSELT_VERSION %d\n", major, minor, patch, CUSPARSELT_VERSION);
  if (major != CUSPARSELT_VER_MAJOR || minor != CUSPARSELT_VER_MINOR || patch != CUSPARSELT_VER_PATCH) return 1;

  cusparseLtHandle_t handle;
  cusparseStatus_t st = cusparseLtInit(&handle);
  if (st != CUSPARSE_STATUS_SUCCESS) {
    printf("cusparselt: cusparseLtInit: no GPU: status %d (%s)\n", (int)st, cusparseLtGetErrorName(st));
    return 0;
  }
  int version = -1;
  st = cusparseLtGetVersion(&handle, &version);
  printf("cusparselt: cusparseLtGetVersion %d (status %d)\n", version, (int)st);
  cusparseLtDestroy(&handle);
  return st != CUSPARSE_STATUS_SUCCESS || version != CUSPARSELT_VERSION;
}
