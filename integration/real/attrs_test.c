#include <stdio.h>

#include "attrs.h"

int main(void) {
  int v = attrs_user_value();
  printf("attrs_test: %d\n", v);
  return v != 1 + 2 + 7 + 5 + 7;
}
