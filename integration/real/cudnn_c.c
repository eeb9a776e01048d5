#include <stdio.h>

#include <cudnn.h>

int main(void) {
  size_t v = cudnnGetVersion();
  printf("cudnn: cudnnGetVersion %zu, CUDNN_VERSION %d\n", v, CUDNN_VERSION);
  return v != CUDNN_VERSION;
}
