/* A dependent of :attrs: its defines and includes reach here, its
 * local_defines do not. */
#include "attrs.h"
#include <attrs_inc.h>

#if CUDAPKGS_DEFINE != 1
#error "defines must reach dependents"
#endif
#ifdef CUDAPKGS_LOCAL
#error "local_defines must not reach dependents"
#endif

extern "C" int attrs_user_value(void) { return attrs_value() + ATTRS_INC; }
