/* Found through cuda_library(includes = ["attrs_inc"]), by dependents too. */
#define ATTRS_INC 7
