# The real-binary scenarios: NVIDIA's own nvcc 12.4 and 13.3 and libraries,
# repacked into archives by integration/realbin, served from 127.0.0.1 and
# downloaded by a real Bazel 7 through the generated hub. Sourced by
# integration/bazel7 (--real, --real-only) once the sid chroot is ready and
# /src/ws's module resolution is done; uses its helpers (inchroot, bz,
# bazel_cmd, in_ws, step, fail) and variables (ROOT, SCRATCH, SID, LOG, GCC,
# CROSS). See integration/README.md, "Real binaries".

real_setup
remove_tree "$SID/src/real" && cp -r "$RWS" "$SID/src/real" || fail "copy the workspace into the chroot"
# The stand-in for the driver's libcuda.so.1 (realbin's host files: Debian's
# libcuda1), which //:cublasmp_test links and loads (integration/real/BUILD.bazel).
cp -r "$REAL/host" "$SID/src/real/host" || fail "copy realbin's host files into the workspace"
remove_tree "$SID/src/repocache-real" || fail "cannot empty the real repository cache"
# Downloads enabled (from the server above only: every URL the hub tries
# first is the mirror's), the stubs the fixture workspace needed.
{
  echo "startup --output_user_root=/src/bazel-root"
  echo "common --repository_cache=/src/repocache-real"
  echo "common --repository_disable_download=false"
  echo "build --repo_env=CC=/usr/bin/gcc-$GCC"
  echo "build --//toolchains/cc:gcc_version=$GCC"
  grep override_module "$SID/src/ws/.bazelrc.local" 2>/dev/null || true
} >"$SID/src/real/.bazelrc.local"
cp "$REAL"/www/compute/cuda/redist/cuda_cuobjdump/linux-x86_64/*.tar.xz "$SCRATCH/cuobjdump.tar.xz" \
  && mkdir -p "$SID/src/cuobjdump" && tar -xJf "$SCRATCH/cuobjdump.tar.xz" -C "$SID/src/cuobjdump" --strip-components=1 \
  || fail "unpack cuda_cuobjdump"
CUOBJDUMP=/src/cuobjdump/bin/cuobjdump
CWS=/src/real
OB=

TESTLOG=real   # expect_log (lib.sh) copies test logs to $LOG/real-TARGET.log
# sass BINARY: the sm_* of the SASS cuobjdump lists in it, sorted, one line.
sass() { in_ws "$CUOBJDUMP" --list-elf "$1" | grep -o 'sm_[0-9]*[af]\?' | sort -u | paste -sd' ' -; }
# linked BINARY: the cubins in BINARY whose code sections hold both
# rdc_kernel and the __device__ rdc_scale of the other file: device-linked
# code (a relocatable object's cubin has one of them only). Fails on none.
# (cuobjdump -elf: -sass would need nvdisasm, which no repacked archive has.)
linked() {
  local n
  n=$(in_ws "$CUOBJDUMP" -elf "$1" | awk '/Fatbin elf code/ { if (k && s) n++; k = s = 0 }
    /PROGBITS.*\.text\._Z10rdc_kerneliPf$/ { k = 1 } /PROGBITS.*\.text\._Z9rdc_scalefi$/ { s = 1 }
    END { if (k && s) n++; print n + 0 }')
  [ "$n" -gt 0 ] || fail "$1: no cubin has both rdc_kernel and rdc_scale: not device linked"
  echo "  cuobjdump -elf $1: $n device-linked cubin(s) with rdc_kernel and rdc_scale"
}
# NVIDIA's cuda-runtime-cu12 12.4.127 wheel (realbin's CUDA 12.4.1 cudart)
# has no libcudadevrt.a; the rdc program needs none (no dynamic parallelism).
devrt() { case $1 in 12.4.1) echo --@cuda//:cudadevrt=none ;; *) echo --@cuda//:cudadevrt=static ;; esac; }

for V in 12.4.1 13.3.0; do
  case $V in
    12.4.1) RT=12040 SASS="sm_75 sm_80 sm_90a" NVCC=12.4.131 ;;
    13.3.0) RT=13030 SASS="sm_121 sm_80 sm_90a" NVCC=13.3.33 ;;
  esac
  step "real: CUDA $V native: NVIDIA's nvcc $NVCC compiles, host-compiler includes, cuda_tests"
  bz real_$V test --@cuda//:version=$V "$(devrt $V)" --config=x86_64 //:saxpy_test //:cudart_c_test //:cudart_cc_test //:curand_test \
    //:rdc_test //:rdc_cc //:attrs_test
  echo "  $(processes "$LOG/real_$V.err")"
  expect_log rdc_test "rdc_test: cudaRuntimeGetVersion $RT; cudaGetDeviceCount: CUDA error"
  expect_log attrs_test "attrs_test: 22"
  linked bazel-bin/rdc_test
  linked bazel-bin/rdc_cc
  expect_log saxpy_test "cudaRuntimeGetVersion $RT (cudaSuccess), CUDART_VERSION $RT"
  expect_log saxpy_test "cudaGetDeviceCount: CUDA error"
  expect_log cudart_c_test "cudaRuntimeGetVersion $RT"
  expect_log cudart_cc_test "cudart_cc: cudaRuntimeGetVersion $RT"
  expect_log curand_test "curand: curandGetVersion"
  got=$(sass bazel-bin/saxpy_test)
  echo "  cuobjdump --list-elf bazel-bin/saxpy_test: $got"
  [ "$got" = "$SASS" ] || fail "CUDA $V: saxpy_test has SASS '$got', want '$SASS'"
  # Whole outputs, then grep (grep -q leaving early would SIGPIPE the writer).
  if grep -q "^nvcc-fixture:" <<<"$(in_ws strings -a bazel-bin/saxpy_test)"; then fail "CUDA $V: saxpy_test was compiled by the fixture nvcc"; fi
  OB=${OB:-$(bazel_cmd info output_base 2>/dev/null)} || fail "bazel info output_base"
  nvcc=$(inchroot sh -c "ls -d $OB/external/*cuda_nvcc_${NVCC//./_}_linux_x86_64" | head -n 1)
  echo "  nvcc: $(inchroot "$nvcc/bin/nvcc" --version | tail -n 2 | head -n 1)"
  if [ "$V" = 13.3.0 ]; then
    inchroot test -x "$nvcc/nvvm/bin/cicc" || fail "CUDA 13.3: libnvvm's cicc is not in the nvcc repository ($nvcc/nvvm/bin)"
    echo "  libnvvm merged into $(basename "$nvcc"): nvvm/bin/cicc, nvvm/libdevice"
  else
    inchroot grep -q __CUDAPKGS_GLIBC_C23_THROW "$nvcc/include/crt/math_functions.h" \
      || fail "CUDA 12.4: the glibc patch is not in $nvcc/include/crt/math_functions.h"
    echo "  glibc $(inchroot ldd --version | head -n 1 | awk '{print $NF}'): crt/math_functions.h patched at fetch (glibc-2.41-math-functions)"
  fi
done

step "real: cuda_library attributes on nvcc's command line (bazel aquery, CUDA 12.4.1)"
# Every attribute, the settings and -c opt in one analysis; -c dbg in another.
ATTR_FLAGS=(--@cuda//:version=12.4.1 "$(devrt 12.4.1)" --config=x86_64)
aq real_aq_opt "${ATTR_FLAGS[@]}" -c opt --@cuda//:lineinfo --@cuda//:copts=-DCUDAPKGS_GLOBAL_COPT \
  --@cuda//:host_copts=-fno-common \
  '//:attrs + //:attrs_user + //:rdc_device + //:rdc_kernel + //:rdc_test_dlink + //:attrs_test_dlink'
expect_args real_aq_opt //:attrs NvccCompile " -DCUDAPKGS_DEFINE=1 " " -DCUDAPKGS_LOCAL=2 " " -isystem attrs_inc " \
  " -Xcompiler -Wno-unused-function " " -Xptxas -warn-spills " " -DCUDAPKGS_COPT=3 " " -DCUDAPKGS_GLOBAL_COPT " \
  " -Xcompiler -fno-common " " -O3 " " -lineinfo " "! -G " "! -rdc=true "
expect_args real_aq_opt //:attrs_user NvccCompile " -DCUDAPKGS_DEFINE=1 " "!CUDAPKGS_LOCAL" " -isystem attrs_inc "
expect_args real_aq_opt //:rdc_device NvccCompile " -rdc=true "
expect_args real_aq_opt //:rdc_kernel NvccCompile " -rdc=true "
expect_args real_aq_opt //:rdc_test_dlink NvccDeviceLink " -dlink " "/rdc_kernel.o " "/rdc_device.o " " --cudadevrt none "
[ -z "$(cmdline real_aq_opt //:attrs_test_dlink NvccDeviceLink)" ] || fail "//:attrs_test_dlink device links, with no rdc object below it"
echo "  //:attrs_test_dlink: no NvccDeviceLink action (nothing below is rdc)"

step "real: -c dbg: nvcc -G, device debug info (.nv_debug sections)"
bz real_dbg build "${ATTR_FLAGS[@]}" -c dbg //:rdc_test
aq real_aq_dbg "${ATTR_FLAGS[@]}" -c dbg //:rdc_kernel
expect_args real_aq_dbg //:rdc_kernel NvccCompile " -g " " -G " "! -lineinfo " "! -O3 "
n=$(in_ws "$CUOBJDUMP" -elf bazel-bin/rdc_test | grep -c '\.nv_debug' || true)
[ "$n" -gt 0 ] || fail "-c dbg: cuobjdump -elf bazel-bin/rdc_test shows no .nv_debug section"
echo "  cuobjdump -elf bazel-bin/rdc_test (-c dbg): $n .nv_debug section lines"

step "real: --@cuda//:runtime=static (CUDA 13.3.0): no libcudart.so NEEDED"
bz real_static test --@cuda//:version=13.3.0 --@cuda//:runtime=static --config=x86_64 //:saxpy_test //:rdc_test
expect_log saxpy_test "cudaRuntimeGetVersion 13030 (cudaSuccess), CUDART_VERSION 13030"
expect_log rdc_test "rdc_test: cudaRuntimeGetVersion 13030"
for b in saxpy_test rdc_test; do
  needed=$(in_ws readelf -d "bazel-bin/$b" | grep NEEDED || true)
  if grep -q 'libcudart\.so' <<<"$needed"; then fail "--@cuda//:runtime=static: bazel-bin/$b needs libcudart.so: $needed"; fi
  echo "  readelf -d bazel-bin/$b: $(grep -o '\[[^]]*\]' <<<"$needed" | paste -sd' ' -)"
done

step "real: clang $CLANG as the CUDA compiler (--@cuda//:compiler=clang, CUDA 12.4.1)"
CLANG_FLAGS=(--@cuda//:compiler=clang --@cuda//:clang=/usr/bin/clang++-$CLANG "${ATTR_FLAGS[@]}")
bz real_clang test "${CLANG_FLAGS[@]}" //:rdc_test //:saxpy_test //:attrs_test
expect_log rdc_test "rdc_test: cudaRuntimeGetVersion 12040; cudaGetDeviceCount: CUDA error"
expect_log saxpy_test "cudaRuntimeGetVersion 12040 (cudaSuccess), CUDART_VERSION 12040"
expect_log attrs_test "attrs_test: 22"
linked bazel-bin/rdc_test
echo "  cuobjdump --list-elf bazel-bin/saxpy_test: $(sass bazel-bin/saxpy_test)"
aq real_aq_clang "${CLANG_FLAGS[@]}" '//:attrs + //:rdc_kernel + //:rdc_test_dlink'
expect_args real_aq_clang //:attrs ClangCudaCompile " -x cuda " "--cuda-path=" " --cuda-gpu-arch=sm_" \
  " -DCUDAPKGS_DEFINE=1 " " -DCUDAPKGS_LOCAL=2 " " -Xarch_host -Wno-unused-function " " -Xcuda-ptxas -warn-spills " "! -fgpu-rdc "
expect_args real_aq_clang //:rdc_kernel ClangCudaCompile " -fgpu-rdc " " --no-offload-new-driver "
expect_args real_aq_clang //:rdc_test_dlink NvccDeviceLink " -dlink " "/rdc_kernel.o "
bz_fails real_clang_13 build --@cuda//:compiler=clang --@cuda//:version=13.3.0 --config=x86_64 //:rdc_test
want="no clang release known to cudapkgs compiles CUDA 13.3.0"
expect_in "$LOG/real_clang_13.err" "$want"
echo "  --@cuda//:compiler=clang --@cuda//:version=13.3.0: $want"

step "real: CUDA 13.3.0 cuBLAS, cuDNN, cuTENSOR (x86_64), dlopen by SONAME"
bz real_libs test --@cuda//:version=13.3.0 --config=x86_64 //:cublas_test //:cudnn_test //:cutensor_test //:dlopen_test
expect_log cublas_test "cublas: cublasGetProperty 13.5.1"
expect_log cudnn_test "cudnn: cudnnGetVersion 91200"
# NVIDIA's cutensor-cu13 2.8.1 wheel (manifest 2.8.1.0) reports 20800, its
# header too: the release's major and minor are checked.
expect_log cutensor_test "cutensor: cutensorGetVersion 208"
expect_log dlopen_test "dlopen libnvJitLink.so.13: ok"
grep -F 'dlopen ' "$LOG/real-dlopen_test.log" | sed 's/^/    /'

# NCCL and NVSHMEM come from wheels: realbin's slim wheels (NVIDIA's, with
# the files these programs need, at the wheel's own paths), on the PEP 691
# index real_setup serves and `cudapkgs manifests fetch --index-url` read;
# Bazel downloads each .whl as a zip with strip_prefix.
WHEEL_LOGS=(
  "nccl_test:nccl: ncclGetVersion 23206, NCCL_VERSION_CODE 23206 (2.32.6)"
  "nvshmem_test:nvshmem: nvshmemx_vendor_get_version_info 3.8.0, NVSHMEM_VENDOR_BASE_VERSION_STRING 3.8.0, OpenSHMEM 1.3, nvshmemx_init_status 0"
)
wheel_logs() { local w; for w in "${WHEEL_LOGS[@]}"; do expect_log "${w%%:*}" "${w#*:}"; done; }
step "real: CUDA 13.3.0 NCCL 2.32.6 and NVSHMEM 3.8.0 from their wheels (x86_64)"
bz real_wheels test --@cuda//:version=13.3.0 --config=x86_64 //:nccl_test //:nvshmem_test
wheel_logs
for w in nvidia_nccl_cu13-2.32.6-py3-none-manylinux_2_27_x86_64.whl nvidia_nvshmem_cu13-3.8.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl; do
  grep -q "GET /pypi/files/$w " "$LOG/http.log" || fail "Bazel did not download /pypi/files/$w from the index's server"
done
echo "  downloaded from the PEP 691 index's files: $(grep -o 'GET /pypi/files/[^ ]*' "$LOG/http.log" | sort -u | sed 's|.*/||' | paste -sd' ' -)"

# cuBLASMp 0.10.0 (realbin's set cublasmp) through the hub's edges: cuBLAS
# 13.5.1 of CUDA 13.3.0, cudart, NCCL's slim wheel. libcublasmp.so.0 needs the
# driver's libcuda.so.1: Debian's libcuda1 550.163.01 stands in (no GPU here).
CUBLASMP_LOGS=(
  "cublasmp: cublasMpGetVersion 1000, CUBLASMP_VERSION 1000 (0.10.0)"
  "cublasmp: libcuda.so.1 cuDriverGetVersion 12040 (status 0)"
)
cublasmp_logs() {
  local w
  for w in "${CUBLASMP_LOGS[@]}"; do expect_log cublasmp_test "$w"; done
  local d
  d=$(in_ws readelf -d bazel-bin/cublasmp_test)
  if grep -E 'R(UN)?PATH' <<<"$d" | grep -q 'host/'; then fail "cublasmp_test has the stand-in driver on its RUNPATH"; fi
  echo "  readelf -d bazel-bin/cublasmp_test: $(grep NEEDED <<<"$d" | grep -o '\[[^]]*\]' | paste -sd' ' -)"
}
step "real: CUDA 13.3.0 cuBLASMp 0.10.0 with its cuBLAS and NCCL edges (x86_64; the driver's libcuda.so.1 a stand-in)"
bz real_cublasmp test --@cuda//:version=13.3.0 --config=x86_64 //:cublasmp_test
cublasmp_logs

# cuSPARSELt 0.8.1 and cuDSS 0.6.0 (realbin's cuda12-libs), CUDA 12.4.1
# x86_64, through their built-in plugins: the hub's targets link NVIDIA's
# libraries; cuDSS loads CUDA 12.4.1's cuBLAS through its edge.
step "real: CUDA 12.4.1 cuSPARSELt 0.8.1, cuDSS 0.6.0 with cuBLAS 12.4.5.8 (x86_64)"
bz real_sparse test --@cuda//:version=12.4.1 --config=x86_64 //:cusparselt_test //:cudss_test //:cublas_test
expect_log cusparselt_test "cusparselt: cusparseLtGetProperty 0.8.1, CUSPARSELT_VERSION 801"
expect_log cusparselt_test "cusparselt: cusparseLtInit: no GPU: status 1 (CUSPARSE_STATUS_NOT_INITIALIZED)"
expect_log cudss_test "cudss: cudssGetProperty 0.6.0, CUDSS_VERSION 600"
expect_log cublas_test "cublas: cublasGetProperty 12.4.5"

if [ "$CROSS" = 1 ]; then
  # CUDA 12.4.1's Jetson archives are NVIDIA's linux-aarch64 ones, which no
  # wheel or .deb has; its sbsa build needs the aarch64-vector-types patch.
  for c in sbsa:12.4.1 sbsa:13.3.0 jetson:13.3.0; do
    cfg=${c%%:*} V=${c#*:}
    case $V in 12.4.1) RT=12040 ;; 13.3.0) RT=13030 ;; esac
    # The rdc program cross-built for linux_sbsa: x86_64 nvcc's device link,
    # sbsa's libcudadevrt.a, the aarch64 host link.
    more=()
    [ "$c" = sbsa:13.3.0 ] && more=(//:rdc_test //:nccl_test //:nvshmem_test)
    step "real: CUDA $V cross --config=$cfg (NVIDIA's aarch64 libraries, run under qemu-aarch64)"
    bz real_${cfg}_$V test --@cuda//:version=$V --config=$cfg //:saxpy_test //:cudart_c_test //:cudart_cc_test //:curand_test "${more[@]}"
    if [ "${#more[@]}" -gt 0 ]; then
      expect_log rdc_test "rdc_test: cudaRuntimeGetVersion $RT; cudaGetDeviceCount: CUDA error"
      grep -q 'ARM aarch64' <<<"$(in_ws file -L bazel-bin/rdc_test)" || fail "$cfg: rdc_test is not aarch64"
      linked bazel-bin/rdc_test
      wheel_logs
      for t in nccl_test nvshmem_test; do
        grep -q 'ARM aarch64' <<<"$(in_ws file -L bazel-bin/$t)" || fail "$cfg: $t is not aarch64"
      done
      # cuBLASMp cross-built and run under qemu: Debian's aarch64 cross gcc
      # links with --as-needed, so the program keeps its NEEDED on cuBLAS and
      # NCCL only through the hub's linkopts (docs/bazel.md, "Toolchains that
      # link with --as-needed"); without them libcublasmp.so.0 cannot load
      # libcublas.so.13.
      bz real_cublasmp_$cfg test --@cuda//:version=$V --config=$cfg //:cublasmp_test
      grep -q 'ARM aarch64' <<<"$(in_ws file -L bazel-bin/cublasmp_test)" || fail "$cfg: cublasmp_test is not aarch64"
      cublasmp_logs
      for n in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
        in_ws readelf -d bazel-bin/cublasmp_test | grep -q "NEEDED.*\[$n\]" || fail "$cfg: cublasmp_test has no NEEDED $n (--as-needed dropped it)"
      done
    fi
    what=$(in_ws file -L bazel-bin/saxpy_test)
    grep -q 'ARM aarch64' <<<"$what" || fail "$cfg: saxpy_test is not aarch64: $what"
    echo "  $(cut -d, -f1-2 <<<"$what")"
    expect_log saxpy_test "cudaRuntimeGetVersion $RT (cudaSuccess), CUDART_VERSION $RT"
    expect_log curand_test "curand: curandGetVersion"
  done
fi
step "real: bazel shutdown"
bazel_cmd shutdown >/dev/null 2>&1 || true
# The server stays for integration/remote/remote.sh when it runs next.
if [ "$REMOTE_TIER" = 0 ]; then
  kill "$HTTP_PID" 2>/dev/null || true
  HTTP_PID= MIRROR_URL=
fi
