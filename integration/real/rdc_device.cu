#include "rdc_device.cuh"

__device__ float rdc_scale(float x, int i) { return x * (float)(i + 1); }
