/* C, host compiler: NVIDIA's cuBLASMp 0.10.0 (its cuda13 archive, repacked from the
 * nvidia-cublasmp-cu13 0.10.0.3695 wheel). cublasmp.h includes cublas_v2.h and nccl.h, and
 * libcublasmp.so.0 needs libcublas.so.13, libcublasLt.so.13 and libnccl.so.2: all come through
 * @cuda//:libcublasmp's edges. It also needs libcuda.so.1, the driver's: cuDriverGetVersion says
 * which one was loaded (the stand-in of BUILD.bazel). cublasMpGetVersion needs no GPU: it must be
 * the header's CUBLASMP_VERSION (0.10.0 is 1000). */
#include <stdio.h>

#include <cublasmp.h>
#include <cuda.h>

int main(void) {
  int version = -1, driver = -1;
  cublasMpStatus_t s = cublasMpGetVersion(&version);
  CUresult r = cuDriverGetVersion(&driver);
  printf("cublasmp: cublasMpGetVersion %d, CUBLASMP_VERSION %d (%d.%d.%d)\n", version, CUBLASMP_VERSION,
         CUBLASMP_VER_MAJOR, CUBLASMP_VER_MINOR, CUBLASMP_VER_PATCH);
  printf("cublasmp: libcuda.so.1 cuDriverGetVersion %d (status %d)\n", driver, (int)r);
  return s != CUBLASMP_STATUS_SUCCESS || version != CUBLASMP_VERSION || r != CUDA_SUCCESS;
}
