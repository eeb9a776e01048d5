#include <stdio.h>
#include <string.h>

#include "cuda_runtime_api.h"
#include "kernel.h"

int main(void) {
  int failed = 0;
  if (kernel_sum(4) != 12.0f) {
    fprintf(stderr, "kernel_sum(4) = %g, want 12\n", kernel_sum(4));
    failed = 1;
  }
  if (strcmp(kernel_crt_arch(), EXPECT_ARCH) != 0) {
    fprintf(stderr, "nvcc compiled against the crt headers of %s, want %s\n", kernel_crt_arch(), EXPECT_ARCH);
    failed = 1;
  }
  if (strcmp(cudartVersionString(), EXPECT_VERSION) != 0 || strcmp(cudartArch(), EXPECT_ARCH) != 0) {
    fprintf(stderr, "linked cudart %s %s, want %s %s\n", cudartVersionString(), cudartArch(), EXPECT_VERSION, EXPECT_ARCH);
    failed = 1;
  }
  if (!failed) printf("ok: kernel, crt %s, cudart %s %s\n", kernel_crt_arch(), cudartVersionString(), cudartArch());
  return failed;
}
