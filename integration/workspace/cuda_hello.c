#include <stdio.h>

#include "cuda_runtime_api.h"
#include "kernel.h"

int main(void) {
  printf("cuda_hello: kernel_sum(4)=%g crt %s cudart %s %s\n", kernel_sum(4), kernel_crt_arch(),
         cudartVersionString(), cudartArch());
  return 0;
}
