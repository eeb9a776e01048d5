#include <stdio.h>
#include <string.h>

#include "cuda_runtime_api.h"

int main(void) {
  int failed = 0;
  if (strcmp(cudartVersionString(), EXPECT_VERSION) != 0) {
    fprintf(stderr, "linked cudart %s, want %s\n", cudartVersionString(), EXPECT_VERSION);
    failed = 1;
  }
  if (strcmp(cudartArch(), EXPECT_ARCH) != 0) {
    fprintf(stderr, "linked cudart for %s, want %s\n", cudartArch(), EXPECT_ARCH);
    failed = 1;
  }
  if (!failed) printf("ok: cudart %s %s\n", cudartVersionString(), cudartArch());
  return failed;
}
