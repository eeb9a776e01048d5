/* dlopen by SONAME, as NVIDIA's libraries do, with no LD_LIBRARY_PATH. The
   names are given as arguments (BUILD.bazel's args differ per CUDA version). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int bad = 0;
  if (getenv("LD_LIBRARY_PATH") && *getenv("LD_LIBRARY_PATH")) {
    printf("dlopen: LD_LIBRARY_PATH is set: %s\n", getenv("LD_LIBRARY_PATH"));
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    printf("dlopen %s: %s\n", argv[i], h ? "ok" : dlerror());
    bad |= !h;
  }
  return bad || argc < 2;
}
