#pragma once
#ifdef __cplusplus
extern "C" {
#endif
float kernel_sum(int n);           /* 2 * (0 + 1 + ... + n-1), through a __global__ function */
const char *kernel_crt_arch(void); /* the NVIDIA key of the crt headers nvcc compiled against */
#ifdef __cplusplus
}
#endif
