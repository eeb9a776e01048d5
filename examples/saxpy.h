#pragma once
#ifdef __cplusplus
extern "C" {
#endif
/* y[i] = a * x[i] + y[i] for i < n. */
void saxpy(int n, float a, const float *x, float *y);
#ifdef __cplusplus
}
#endif
