/* Compiles only with what cuda_library's attributes give it. */
#include "attrs.h"
#include "attrs_private.cuh"
#include <attrs_inc.h>

#if CUDAPKGS_DEFINE != 1 || CUDAPKGS_LOCAL != 2
#error "defines and local_defines must reach the compile"
#endif

extern "C" int attrs_value(void) { return CUDAPKGS_DEFINE + CUDAPKGS_LOCAL + ATTRS_INC + ATTRS_PRIVATE; }
