# The real-binary workspace, shared by integration/real.sh and
# integration/remote/remote.sh: NVIDIA's binaries repacked by
# integration/realbin, served from 127.0.0.1 (HTTP_PID, MIRROR_URL), and
# integration/real generated against them on the host ($RWS). Sourced by
# integration/bazel7 once (real_setup is a no-op the second time).
real_setup() {
  [ -z "${MIRROR_URL:-}" ] || return 0
  step "real: NVIDIA's binaries (integration/realbin: download or cache, repack)"
  REAL=$SCRATCH/realbin
  realbin "$REAL"
  cat "$LOG/realbin.out"

  step "real: HTTP server on 127.0.0.1, cudapkgs generate from the repacked manifests"
  serve_dir "$REAL/www" "$LOG/http.log"
  MIRROR_URL=http://127.0.0.1:$PORT/
  echo "  serving $REAL/www at $MIRROR_URL"
  # NCCL and NVSHMEM: manifests made from realbin's PEP 691 index, as a user
  # makes them from PyPI (made again each run: their URLs name this port).
  rm -rf "$REAL/manifests/nccl" "$REAL/manifests/nvshmem" "$SCRATCH/realbin-wheels.lock"
  "$SCRATCH/bin/cudapkgs" manifests fetch --index-url "${MIRROR_URL}pypi/simple/" --product nccl,nvshmem \
    --cache "$REAL/manifests" --lock "$SCRATCH/realbin-wheels.lock" >"$LOG/real-wheels.out" 2>&1 \
    || { cat "$LOG/real-wheels.out" >&2; fail "cudapkgs manifests fetch --index-url (real)"; }
  grep '^fetched' "$LOG/real-wheels.out" | sed 's/^/  /'
  RWS=$SCRATCH/realws
  remove_tree "$RWS" && cp -r "$ROOT/integration/workspace-bzlmod" "$RWS" || fail "copy the bzlmod workspace"
  (cd "$ROOT/integration/real" && cp -r MODULE.bazel BUILD.bazel ./*.c ./*.cc ./*.cu ./*.cuh ./*.h attrs_inc "$RWS/") || fail "copy integration/real"
  (cd "$ROOT/integration/workspace" && cp platform_mappings "$RWS/" && cp toolchains/cc/config.bzl "$RWS/toolchains/cc/") \
    || fail "copy integration/workspace's platform_mappings"
  # Capabilities from 8.0 (Ampere) off Jetson, where each CUDA version keeps its
  # defaults (Orin for 12.x, Thor for 13.x): cuSPARSELt needs the Sparse Tensor
  # Cores of 8.0 and newer, and is unusable in a hub that also serves Turing.
  "$SCRATCH/bin/cudapkgs" generate --manifests "$REAL/manifests" --out "$RWS/third_party/cuda" \
    --cuda 12.4.1,13.3.0 --platform linux-x86_64,linux-sbsa,linux-jetson --capabilities 8.0,9.0 --mirror "$MIRROR_URL" \
    >"$LOG/real-generate.out" 2>&1 || { cat "$LOG/real-generate.out" >&2; fail "cudapkgs generate (real)"; }
  tail -n 1 "$LOG/real-generate.out"
}
