#include <stdio.h>

#include <curand.h>

int main(void) {
  int v = 0;
  curandStatus_t s = curandGetVersion(&v);
  printf("curand: curandGetVersion %d, CURAND_VERSION %d\n", v, CURAND_VERSION);
  return !(s == CURAND_STATUS_SUCCESS && v == CURAND_VERSION);
}
