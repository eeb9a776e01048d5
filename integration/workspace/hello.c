#include <stdio.h>

#include "cuda_runtime_api.h"

int main(void) {
  printf("cudart %s %s %d\n", cudartVersionString(), cudartArch(), cudartVersion());
  return 0;
}
