#include <stdio.h>

#include <cutensor.h>

int main(void) {
  size_t v = cutensorGetVersion();
  printf("cutensor: cutensorGetVersion %zu, CUTENSOR_VERSION %d\n", v, CUTENSOR_VERSION);
  return v != CUTENSOR_VERSION;
}
