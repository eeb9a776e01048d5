/* C, host compiler: cublas_v2.h includes cudart's headers (driver_types.h, cuComplex.h, library_types.h). */
#include <stdio.h>

#include <cublas_v2.h>

int main(void) {
  int major = -1, minor = -1, patch = -1;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) return 1;
  printf("cublas: cublasGetProperty %d.%d.%d\n", major, minor, patch);
  return !(major == CUBLAS_VER_MAJOR && minor == CUBLAS_VER_MINOR && patch == CUBLAS_VER_PATCH);
}
