#ifndef RDC_DEVICE_CUH
#define RDC_DEVICE_CUH
/* Defined in rdc_device.cu, called from rdc_kernel.cu's kernel: only a
 * device link (relocatable device code) resolves it. */
__device__ float rdc_scale(float x, int i);
#endif
