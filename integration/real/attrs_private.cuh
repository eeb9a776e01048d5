/* A private header in srcs: compiled against, not exported. */
#define ATTRS_PRIVATE 5
