/* C, host compiler: NVIDIA's cuDSS 0.6.0. cudss.h includes cudart's cuda_runtime.h and
 * library_types.h; libcudss.so.0 needs libcublas.so.12 (CUDA 12.4.1's cuBLAS, through @cuda's edges).
 * cudssGetProperty needs no GPU: MAJOR, MINOR and PATCH must be the header's CUDSS_VERSION_*. */
#include <stdio.h>

#include <cudss.h>

int main(void) {
  int major = -1, minor = -1, patch = -1;
  if (cudssGetProperty(MAJOR_VERSION, &major) != CUDSS_STATUS_SUCCESS ||
      cudssGetProperty(MINOR_VERSION, &minor) != CUDSS_STATUS_SUCCESS ||
      cudssGetProperty(PATCH_LEVEL, &patch) != CUDSS_STATUS_SUCCESS) return 1;
  printf("cudss: cudssGetProperty %d.%d.%d, CUDSS_VERSION %d\n", major, minor, patch, CUDSS_VERSION);
  return !(major == CUDSS_VERSION_MAJOR && minor == CUDSS_VERSION_MINOR && patch == CUDSS_VERSION_PATCH);
}
