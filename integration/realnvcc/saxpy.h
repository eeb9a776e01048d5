#ifndef SAXPY_H_
#define SAXPY_H_

#ifdef __cplusplus
extern "C" {
#endif

/* y = a*x + y on the GPU. Returns 0 on success, the CUDA error code
 * otherwise (with its name and text in msg), or -1 when this build has no
 * real nvcc (the fixture toolkit): then y is computed on the host. */
int saxpy_device(int n, float a, const float *x, float *y, char *msg, int len);

/* Which compiler built saxpy.cu: "nvcc 11.8" or "host compiler". */
const char *saxpy_compiler(void);

#ifdef __cplusplus
}
#endif

#endif
