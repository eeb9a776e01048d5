# The init scenario (issue 15): `cudapkgs init` in an empty Bazel 7 workspace,
# then `bazel build` and `bazel run` of a small cuda_binary, the archives
# downloaded by Bazel from a server on 127.0.0.1. Sourced by integration/bazel7
# (last in a full run; alone with --init-only) once the sid chroot is ready and
# /src/ws's module resolution is done; uses its helpers (inchroot, bz,
# bazel_cmd, in_ws, step, fail, expect_in, expect_nvcc) and variables (ROOT,
# SCRATCH, SID, LOG). See integration/README.md, "init".

step "init: HTTP server on 127.0.0.1 for the fixture archives"
INIT_WWW=$SCRATCH/initwww
mkdir -p "$INIT_WWW" && ln -sfn "$SCRATCH/fixtures/redist" "$INIT_WWW/compute" || fail "init: $INIT_WWW"
serve_dir "$INIT_WWW" "$LOG/init-http.log"
INIT_MIRROR=http://127.0.0.1:$PORT/
echo "  serving $SCRATCH/fixtures/redist as $INIT_MIRROR""compute/"

# The workspace holds only what a user writes before init: a BUILD file and
# the sources. What this machine needs offline (sid's module overrides plus
# the stubs /src/ws resolved, an output root, an empty repository cache) is
# in /src/init.bazelrc, outside it, given with --bazelrc.
IWS=$SID/src/initws
remove_tree "$IWS" && remove_tree "$SID/src/initrepocache" && mkdir -p "$IWS" || fail "init: cannot empty $IWS"
(cd "$ROOT/integration/workspace" && cp cuda_hello.c kernel.cu kernel.h "$IWS/") || fail "init: copy the sources"
cat > "$IWS/BUILD.bazel" <<'EOF'
load("@cuda//rules:cuda.bzl", "cuda_binary")

cuda_binary(
    name = "cuda_hello",
    srcs = [
        "cuda_hello.c",
        "kernel.cu",
    ],
    hdrs = ["kernel.h"],
)
EOF
{
  echo "# integration/init.sh: this machine's offline settings, outside the workspace."
  echo "startup --max_idle_secs=300"
  echo "startup --output_user_root=/src/bazel-root"
  echo "build --nosandbox_debug"
  echo "import /src/ws/bazel9.bazelrc"   # Bazel 8 and 9 behaviour (/src/ws is integration/workspace-bzlmod's copy)
  echo "common --lockfile_mode=off"
  echo "common --repository_cache=/src/initrepocache"
  echo "build --show_timestamps=false"
  for d in "$SID"/src/ws/third_party/bzlmod_stubs/*/; do
    n=$(basename "$d")
    echo "common --override_module=$n=/src/ws/third_party/bzlmod_stubs/$n"
  done
} > "$SID/src/init.bazelrc"
INIT_RC=--bazelrc=/src/init.bazelrc

step "init: cudapkgs init --manifests <fixtures> --cuda 12.6.3 --platform linux-x86_64 --mirror $INIT_MIRROR"
init_run() { # NAME: cudapkgs init in the workspace (on the host: its files are the chroot's)
  (cd "$IWS" && "$SCRATCH/bin/cudapkgs" init --manifests "$SCRATCH/fixtures/manifests" --cuda 12.6.3 \
    --platform linux-x86_64 --mirror "$INIT_MIRROR") >"$LOG/$1.out" 2>"$LOG/$1.err" \
    || { cat "$LOG/$1.out" "$LOG/$1.err" >&2; fail "cudapkgs init ($1)"; }
  sed 's/^/  /' "$LOG/$1.out" "$LOG/$1.err"
}
init_run init1
[ -f "$IWS/cudapkgs.star" ] || fail "init wrote no cudapkgs.star"
grep -qx 'cuda_versions(\["12.6.3"\])' "$IWS/cudapkgs.star" || fail "cudapkgs.star does not set cuda_versions([\"12.6.3\"])"
[ -f "$IWS/third_party/cuda/MODULE.bazel" ] || fail "init generated no module in third_party/cuda"
for want in 'bazel_dep(name = "cuda")' 'module_name = "cuda",' 'path = "third_party/cuda",' \
  'cuda = use_extension("@cuda//:extensions.bzl", "cuda")'; do
  grep -qF "$want" "$IWS/MODULE.bazel" || { cat "$IWS/MODULE.bazel" >&2; fail "MODULE.bazel has no $want"; }
done

step "init: a second run changes nothing (every file's bytes and modification time)"
snapshot() { (cd "$IWS" && find . -type f -print0 | sort -z | xargs -0 stat -c '%n %s %Y' && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
snapshot > "$SCRATCH/init-before.txt"
sleep 1   # a rewrite would show in the modification times
init_run init2
snapshot > "$SCRATCH/init-after.txt"
diff "$SCRATCH/init-before.txt" "$SCRATCH/init-after.txt" >&2 || fail "the second cudapkgs init changed the workspace"
expect_in "$LOG/init2.out" "MODULE.bazel: already uses @cuda, unchanged"
expect_in "$LOG/init2.err" "up to date"
echo "  $(grep -c ' ' "$SCRATCH/init-after.txt") lines of sizes, times and sha256s: identical"

step "init: bazel build and run //:cuda_hello, the archives downloaded from $INIT_MIRROR"
CWS=/src/initws
bz init_build "$INIT_RC" build //:cuda_hello
echo "  $(processes "$LOG/init_build.err")"
expect_nvcc bazel-bin/cuda_hello "nvcc-fixture:12.6.85:linux-x86_64 "
echo "  bazel-bin/cuda_hello: $(nvcc_fixture bazel-bin/cuda_hello)"
bz init_run_hello "$INIT_RC" run --noshow_progress //:cuda_hello
cat "$LOG/init_run_hello.out"
expect_in "$LOG/init_run_hello.out" "cuda_hello: kernel_sum(4)=12 crt linux-x86_64 cudart 12.6.77 linux-x86_64"
for a in cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.6.85-archive.tar.xz \
  cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.6.77-archive.tar.xz; do
  grep -qF "\"GET /compute/cuda/redist/$a HTTP/1.1\" 200" "$LOG/init-http.log" \
    || { cat "$LOG/init-http.log" >&2; fail "Bazel did not download $a from $INIT_MIRROR"; }
  echo "  downloaded: $INIT_MIRROR""compute/cuda/redist/$a"
done
bazel_cmd "$INIT_RC" shutdown >/dev/null 2>&1 || true
CWS=/src/ws
kill "$HTTP_PID" 2>/dev/null || true
HTTP_PID=
