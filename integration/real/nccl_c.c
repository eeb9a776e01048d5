/* C, host compiler: NVIDIA's NCCL 2.32.6, from its wheel (nvidia-nccl-cu13). nccl.h includes
 * cudart's cuda_runtime.h. ncclGetVersion needs no GPU: it must be the header's NCCL_VERSION_CODE
 * (2.32.6 is 23206). */
#include <stdio.h>

#include <nccl.h>

int main(void) {
  int version = -1;
  if (ncclGetVersion(&version) != ncclSuccess) return 1;
  printf("nccl: ncclGetVersion %d, NCCL_VERSION_CODE %d (%d.%d.%d)\n", version, NCCL_VERSION_CODE, NCCL_MAJOR,
         NCCL_MINOR, NCCL_PATCH);
  return version != NCCL_VERSION_CODE;
}
