/* C++, host compiler: NVIDIA's NVSHMEM 3.8.0 host library, from its wheel (nvidia-nvshmem-cu13).
 * nvshmem_host.h is nvshmem.h's host half (the rest is CUDA device code; both are C++ only, and
 * NVSHMEM_HOSTLIB_ONLY would make these calls always_inline device functions). No GPU, no
 * nvshmem_init: the library's version must be the header's NVSHMEM_VENDOR_* and
 * NVSHMEM_MAJOR/MINOR_VERSION, and nvshmemx_init_status must say it is not initialized. */
#include <cstdio>

#include <nvshmem_host.h>

int main() {
  int major = -1, minor = -1, patch = -1, spec_major = -1, spec_minor = -1;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  nvshmem_info_get_version(&spec_major, &spec_minor);
  int status = nvshmemx_init_status();
  std::printf("nvshmem: nvshmemx_vendor_get_version_info %d.%d.%d, NVSHMEM_VENDOR_BASE_VERSION_STRING %s, "
              "OpenSHMEM %d.%d, nvshmemx_init_status %d\n",
              major, minor, patch, NVSHMEM_VENDOR_BASE_VERSION_STRING, spec_major, spec_minor, status);
  return !(major == NVSHMEM_VENDOR_MAJOR_VERSION && minor == NVSHMEM_VENDOR_MINOR_VERSION &&
           patch == NVSHMEM_VENDOR_PATCH_VERSION && spec_major == NVSHMEM_MAJOR_VERSION &&
           spec_minor == NVSHMEM_MINOR_VERSION && status == NVSHMEM_STATUS_NOT_INITIALIZED);
}
