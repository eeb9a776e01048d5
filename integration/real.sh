# The real-binary scenarios: NVIDIA's own nvcc 12.4 and 13.3 and libraries,
# repacked into archives by integration/realbin, served from 127.0.0.1 and
# downloaded by a real Bazel 7 through the generated hub. Sourced by
# integration/bazel7 (--real, --real-only) once the sid chroot is ready and
# /src/ws's module resolution is done; uses its helpers (inchroot, bz,
# bazel_cmd, in_ws, step, fail) and variables (ROOT, SCRATCH, SID, LOG, GCC,
# CROSS). See integration/README.md, "Real binaries".

step "real: NVIDIA's binaries (integration/realbin: download or cache, repack)"
REAL=$SCRATCH/realbin
realbin "$REAL"
cat "$LOG/realbin.out"

step "real: HTTP server on 127.0.0.1, cudapkgs generate from the repacked manifests"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$REAL/www" >"$LOG/http.log" 2>&1 &
HTTP_PID=$!
PORT=
for _ in $(seq 50); do
  PORT=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$LOG/http.log" | head -n 1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || fail "the HTTP server did not start: $(cat "$LOG/http.log")"
MIRROR_URL=http://127.0.0.1:$PORT/
echo "  serving $REAL/www at $MIRROR_URL"
RWS=$SCRATCH/realws
remove_tree "$RWS" && cp -r "$ROOT/integration/workspace-bzlmod" "$RWS" || fail "copy the bzlmod workspace"
(cd "$ROOT/integration/real" && cp MODULE.bazel BUILD.bazel ./*.c ./*.cc ./*.cu ./*.h "$RWS/") || fail "copy integration/real"
(cd "$ROOT/integration/workspace" && cp platform_mappings "$RWS/" && cp toolchains/cc/config.bzl "$RWS/toolchains/cc/") \
  || fail "copy integration/workspace's platform_mappings"
# Capabilities from 8.0 (Ampere) off Jetson, where each CUDA version keeps its
# defaults (Orin for 12.x, Thor for 13.x): cuSPARSELt needs the Sparse Tensor
# Cores of 8.0 and newer, and is unusable in a hub that also serves Turing.
"$SCRATCH/bin/cudapkgs" generate --manifests "$REAL/manifests" --out "$RWS/third_party/cuda" \
  --cuda 12.4.1,13.3.0 --platform linux-x86_64,linux-sbsa,linux-jetson --capabilities 8.0,9.0 --mirror "$MIRROR_URL" \
  >"$LOG/real-generate.out" 2>&1 || { cat "$LOG/real-generate.out" >&2; fail "cudapkgs generate (real)"; }
tail -n 1 "$LOG/real-generate.out"
remove_tree "$SID/src/real" && cp -r "$RWS" "$SID/src/real" || fail "copy the workspace into the chroot"
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

# expect_log TARGET TEXT: the test's log (last run) has TEXT.
expect_log() {
  in_ws cat "bazel-testlogs/$1/test.log" >"$LOG/real-$1.log" 2>/dev/null || fail "no test log of //:$1"
  expect_in "$LOG/real-$1.log" "$2"
  echo "  //:$1: $(grep -F -- "$2" "$LOG/real-$1.log" | head -n 1)"
}
# sass BINARY: the sm_* of the SASS cuobjdump lists in it, sorted, one line.
sass() { in_ws "$CUOBJDUMP" --list-elf "$1" | grep -o 'sm_[0-9]*[af]\?' | sort -u | paste -sd' ' -; }

for V in 12.4.1 13.3.0; do
  case $V in
    12.4.1) RT=12040 SASS="sm_75 sm_80 sm_90a" NVCC=12.4.131 ;;
    13.3.0) RT=13030 SASS="sm_121 sm_80 sm_90a" NVCC=13.3.33 ;;
  esac
  step "real: CUDA $V native: NVIDIA's nvcc $NVCC compiles, host-compiler includes, cuda_tests"
  bz real_$V test --@cuda//:version=$V --config=x86_64 //:saxpy_test //:cudart_c_test //:cudart_cc_test //:curand_test
  echo "  $(processes "$LOG/real_$V.err")"
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

step "real: CUDA 13.3.0 cuBLAS, cuDNN, cuTENSOR (x86_64), dlopen by SONAME"
bz real_libs test --@cuda//:version=13.3.0 --config=x86_64 //:cublas_test //:cudnn_test //:cutensor_test //:dlopen_test
expect_log cublas_test "cublas: cublasGetProperty 13.5.1"
expect_log cudnn_test "cudnn: cudnnGetVersion 91200"
# NVIDIA's cutensor-cu13 2.8.1 wheel (manifest 2.8.1.0) reports 20800, its
# header too: the release's major and minor are checked.
expect_log cutensor_test "cutensor: cutensorGetVersion 208"
expect_log dlopen_test "dlopen libnvJitLink.so.13: ok"
grep -F 'dlopen ' "$LOG/real-dlopen_test.log" | sed 's/^/    /'

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
    step "real: CUDA $V cross --config=$cfg (NVIDIA's aarch64 libraries, run under qemu-aarch64)"
    bz real_${cfg}_$V test --@cuda//:version=$V --config=$cfg //:saxpy_test //:cudart_c_test //:cudart_cc_test //:curand_test
    what=$(in_ws file -L bazel-bin/saxpy_test)
    grep -q 'ARM aarch64' <<<"$what" || fail "$cfg: saxpy_test is not aarch64: $what"
    echo "  $(cut -d, -f1-2 <<<"$what")"
    expect_log saxpy_test "cudaRuntimeGetVersion $RT (cudaSuccess), CUDART_VERSION $RT"
    expect_log curand_test "curand: curandGetVersion"
  done
fi
step "real: bazel shutdown"
bazel_cmd shutdown >/dev/null 2>&1 || true
kill "$HTTP_PID" 2>/dev/null || true
HTTP_PID=
