# The remote-execution scenarios (integration/remote): the real-binary
# workspace (integration/real, NVIDIA's nvcc 12.4 and 13.3 and libraries)
# built and tested by Bazel 7 in the sid chroot through a real REAPI engine on
# 127.0.0.1: BuildGrid (Execution, Bots, ActionCache, CAS, ByteStream) with its
# scheduler on PostgreSQL, and two workers (integration/remote/worker) that run
# every action chrooted into a root with no CUDA, no Bazel and no workspace
# (integration/remote/root.sh). One of them declares a GPU.
# Sourced by integration/bazel7 (--remote, --remote-only) once the chroot and
# module resolution are ready; uses its helpers and variables. See
# docs/remote.md.

. "$ROOT/integration/remote/cluster.sh"
. "$ROOT/integration/remote/root.sh"

RSTATE=$SCRATCH/remote
STATE=$RSTATE
VENV=${CUDAPKGS_BUILDGRID_VENV:-/var/tmp/cudapkgs-buildgrid}
WROOT=${CUDAPKGS_WORKER_ROOT:-/var/tmp/cudapkgs-worker-root}
# The GPU property the tier's farm uses (docs/remote.md has other farms').
GPU_KEY=gpu GPU_VALUE=nvidia
WORKER_PIDS=()
NGINX_PID=
mkdir -p "$RSTATE"

# remote_cleanup: stops what the tier started (some of it may be dead
# already: the lost-worker scenario kills one); never fails.
remote_cleanup() {
  local p
  for p in "${WORKER_PIDS[@]}"; do [ -z "$p" ] || kill "$p" 2>/dev/null || true; done
  [ -z "$NGINX_PID" ] || kill "$NGINX_PID" 2>/dev/null || true
  bgd_stop || true
  pg_stop || true
  # Actions still running in the workers' roots.
  for r in "$WROOT" "$RSTATE/nogcc-root"; do
    [ -d "$r" ] || continue
    for p in $(chroot_pids "$r"); do kill -9 "$p" 2>/dev/null || true; done
    unmount_all "$r" || true
  done
  rm -rf --one-file-system "$WROOT/build" "$WROOT"/.cache-* "$RSTATE/nogcc-root" 2>/dev/null || true
  return 0
}

step "remote: BuildGrid (PyPI, pinned by integration/remote/constraints.txt), PostgreSQL, nginx"
need=()
[ -n "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null)" ] || need+=(postgresql)
command -v nginx >/dev/null || need+=(nginx)
command -v debootstrap >/dev/null || need+=(debootstrap)
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
apt_install "${need[@]}"
# The virtualenv is kept between runs (like the chroot), rebuilt when the
# constraints change.
want=$(sha256sum "$ROOT/integration/remote/constraints.txt" | cut -d' ' -f1)
if [ "$(cat "$VENV/.cudapkgs-constraints" 2>/dev/null)" != "$want" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || fail "python3 -m venv $VENV"
  "$VENV/bin/pip" install -q -c "$ROOT/integration/remote/constraints.txt" "buildgrid[database]" >"$LOG/pip-buildgrid.log" 2>&1 \
    || { tail -n 20 "$LOG/pip-buildgrid.log" >&2; fail "pip install buildgrid[database]"; }
  echo "$want" >"$VENV/.cudapkgs-constraints"
fi
echo "  $("$VENV/bin/pip" show buildgrid 2>/dev/null | awk '/^Version/{print "buildgrid " $2}'), $("$VENV/bin/python" --version)"

step "remote: the workers' root ($WROOT)"
worker_root "$WROOT"
for m in proc dev; do
  mountpoint -q "$WROOT/$m" || mount --bind "/$m" "$WROOT/$m" || fail "mount /$m in the workers' root"
done

step "remote: the worker (integration/remote/worker, its own Go module)"
(cd "$ROOT/integration/remote/worker" && go build -o "$RSTATE/worker" .) || fail "go build integration/remote/worker"

step "remote: PostgreSQL, BuildGrid, two workers (one with $GPU_KEY=$GPU_VALUE)"
pg_start
bgd_start
# start_worker NAME ROOT PROPERTY...: a worker on BuildGrid, logging to
# $RSTATE/NAME.log; its pid goes to WORKER_PIDS.
start_worker() {
  local name=$1 root=$2; shift 2
  local props=()
  for p in "$@"; do props+=(-property "$p"); done
  mkdir -p "$root/build"
  "$RSTATE/worker" -server "127.0.0.1:$BGD_PORT" -name "$name" -root "$root" -cache "$root/.cache-$name" \
    -log "$RSTATE/$name.log" "${props[@]}" >"$LOG/worker-$name.out" 2>&1 &
  WORKER_PIDS+=($!)
}
start_worker cpu "$WROOT" OSFamily=linux
start_worker gpu "$WROOT" OSFamily=linux "$GPU_KEY=$GPU_VALUE"
sleep 2
for i in 0 1; do kill -0 "${WORKER_PIDS[$i]}" 2>/dev/null || { cat "$LOG"/worker-*.out >&2; fail "a worker exited"; }; done

real_setup
# Two checkouts of one workspace at different paths, each with its own output
# base: the second must get every action from the cache.
WSA=/src/remote-a WSB=/src/elsewhere/checkout-b
for ws in "$WSA" "$WSB"; do
  remove_tree "$SID$ws" && mkdir -p "$(dirname "$SID$ws")" && cp -r "$RWS" "$SID$ws" || fail "copy the workspace to $ws"
done
# The GPU scenario's targets (cuda_test with and without a GPU) and the slow
# action the lost-worker scenario kills a worker under.
cat >>"$SID$WSA/BUILD.bazel" <<'EOF'

# integration/remote: a cuda_test that needs no GPU (its test action may run
# on any worker), and an action slow enough to kill its worker under.
cuda_test(
    name = "nogpu_test",
    srcs = ["cudart_c.c"],
    gpu = False,
    deps = ["@cuda//:cuda_cudart"],
)

# Sleeps past --test_timeout: the worker kills it at the action's timeout.
cc_test(
    name = "sleepy_test",
    srcs = ["sleepy.c"],
    tags = ["manual"],
)

genrule(
    name = "slow",
    outs = ["slow.txt"],
    cmd = "sleep 25 && echo slow > $@",
    tags = ["manual"],
)
EOF
printf '#include <unistd.h>\nint main(void) { sleep(60); return 0; }\n' >"$SID$WSA/sleepy.c"
cp "$SID$WSA/BUILD.bazel" "$SID$WSB/BUILD.bazel"
# A header no target declares, found through an absolute path into the
# client's checkout. Nothing checks a cuda_library's inclusions (nvcc's
# actions have no .d check) and the local sandbox shows the client's
# filesystem, so it builds here; a worker's root has no workspace.
mkdir -p "$SID$WSA/undeclared_dir"
echo '#define UNDECLARED 1' >"$SID$WSA/undeclared_dir/undeclared.h"
cat >"$SID$WSA/undeclared.cu" <<'EOF'
#include "undeclared.h"
__global__ void undeclared_kernel(int *p) { *p = UNDECLARED; }
EOF
cat >>"$SID$WSA/BUILD.bazel" <<EOF

cuda_library(
    name = "undeclared",
    srcs = ["undeclared.cu"],
    copts = ["-I$WSA/undeclared_dir"],
    tags = ["manual"],
)
EOF
remote_rc() { # WORKSPACE OUTPUT_ROOT: the machine lines of its .bazelrc.local
  echo "startup --output_user_root=$2"
  echo "common --repository_cache=/src/repocache-remote"
  echo "common --repository_disable_download=false"
  echo "build --repo_env=CC=/usr/bin/gcc-$GCC"
  echo "build --//toolchains/cc:gcc_version=$GCC"
  grep override_module "$SID/src/ws/.bazelrc.local" 2>/dev/null || true
  # What docs/remote.md's .bazelrc has, with this cluster's addresses. A
  # fixed PATH for every action, local or remote: the same action keys
  # whichever way a checkout builds.
  echo "build --incompatible_strict_action_env"
  echo "build:remote --remote_executor=grpc://127.0.0.1:$BGD_PORT"
  echo "build:remote --spawn_strategy=remote"
  echo "build:remote --remote_timeout=600"
  echo "build:remote --jobs=16"
  echo "build:minimal --remote_download_minimal"
  echo "build:grpccache --remote_cache=grpc://127.0.0.1:$BGD_PORT"
}
# cuda_test asks for a GPU for its test action: the farm's property.
for ws in "$WSA" "$WSB"; do
  printf '\ncuda.remote(gpu_exec_property = "%s")\n' "$GPU_KEY=$GPU_VALUE" >>"$SID$ws/MODULE.bazel"
done
remote_rc "$WSA" /src/bazel-root-remote-a >"$SID$WSA/.bazelrc.local"
remote_rc "$WSB" /src/bazel-root-remote-b >"$SID$WSB/.bazelrc.local"
remove_tree "$SID/src/bazel-root-remote-a" && remove_tree "$SID/src/bazel-root-remote-b" \
  && remove_tree "$SID/src/repocache-remote" || fail "cannot empty the remote output roots"

# execlog NAME [--all-hits]: the execution log of bz NAME, summarised; fails
# on any spawn not run remotely (or, with --all-hits, not a remote cache hit).
execlog() {
  python3 "$ROOT/integration/remote/execlog.py" "$SID/src/execlog-$1.json" "${@:2}" >"$LOG/execlog-$1.txt" \
    || { cat "$LOG/execlog-$1.txt" >&2; fail "$1: the execution log ($SID/src/execlog-$1.json)"; }
  sed 's/^/  /' "$LOG/execlog-$1.txt"
}
cas_bytes() { du -sb "$STATE/bgd/cas" | cut -f1; }
# out_bytes: what the client holds of the outputs (bazel-out, dereferenced
# only for files Bazel downloaded).
out_bytes() { inchroot sh -c "cd '$CWS' && du -sb \"\$(readlink -f bazel-out)\" | cut -f1"; }
TESTLOG=remote   # expect_log (lib.sh) copies test logs to $LOG/remote-TARGET.log

# The builds that cover the issue's list, smallest set: CUDA 12.4.1 and 13.3.0
# (nvcc for several capabilities, cudart, cuBLAS, cuDNN, cuTENSOR, the rdc
# program), static cudart, the sbsa cross build under qemu on the worker.
BUILDS=(
  "v124|--@cuda//:version=12.4.1 --@cuda//:cudadevrt=none --config=x86_64|//:saxpy_test //:rdc_test //:cublas_test //:nogpu_test"
  "v133|--@cuda//:version=13.3.0 --config=x86_64|//:saxpy_test //:rdc_test //:cublas_test //:cudnn_test //:cutensor_test"
  "static|--@cuda//:version=13.3.0 --@cuda//:runtime=static --config=x86_64|//:saxpy_test"
  "sbsa|--@cuda//:version=13.3.0 --config=sbsa|//:saxpy_test //:rdc_test"
)
# run_builds TAG EXTRA...: every build of BUILDS, each with its execution log.
run_builds() {
  local tag=$1; shift
  local b name flags targets
  for b in "${BUILDS[@]}"; do
    IFS='|' read -r name flags targets <<<"$b"
    # shellcheck disable=SC2086
    bz "${tag}_$name" test "$@" $flags --execution_log_json_file="/src/execlog-${tag}_$name.json" $targets
  done
}

CWS=$WSA
step "remote: cold cluster, checkout A: every action on the workers (--config=remote)"
t0=$(date +%s)
run_builds cold --config=remote
COLD_S=$(( $(date +%s) - t0 ))
COLD_CAS=$(cas_bytes)
COLD_OUT=$(out_bytes)
for b in "${BUILDS[@]}"; do execlog "cold_${b%%|*}"; done
expect_log saxpy_test "cudaRuntimeGetVersion 13030 (cudaSuccess), CUDART_VERSION 13030"
# The sbsa tests ran on the worker under qemu (Bazel 7 downloads no test
# binary of a remote test by default: the execution log says how it ran).
grep -q '"qemu-aarch64"' "$SID/src/execlog-cold_sbsa.json" || fail "the sbsa tests did not run under qemu-aarch64 on the worker"
echo "  sbsa: the TestRunner spawns ran qemu-aarch64 on the worker"
expect_log rdc_test "rdc_test: cudaRuntimeGetVersion 13030; cudaGetDeviceCount: CUDA error"
echo "  cold: ${COLD_S}s; CAS holds $COLD_CAS bytes; the client's bazel-out $COLD_OUT bytes"

step "remote: GPU tests went to the GPU worker only, compiles and links to both"
python3 "$ROOT/integration/remote/routing.py" "$GPU_KEY=$GPU_VALUE" "$RSTATE/gpu.log" "$RSTATE/cpu.log" "$SID"/src/execlog-cold_*.json \
  >"$LOG/routing.txt" || { cat "$LOG/routing.txt" >&2; fail "GPU routing"; }
sed 's/^/  /' "$LOG/routing.txt"

step "remote: build without the bytes, warm (bazel clean, --config=minimal)"
bz clean_a clean
t0=$(date +%s)
run_builds warm --config=remote --config=minimal
WARM_S=$(( $(date +%s) - t0 ))
WARM_OUT=$(out_bytes)
for b in "${BUILDS[@]}"; do execlog "warm_${b%%|*}" --all-hits; done
echo "  warm, minimal: ${WARM_S}s; the client's bazel-out $WARM_OUT bytes (cold, with Bazel 7's default --remote_download_outputs=toplevel: $COLD_OUT)"

CWS=$WSB
step "remote: checkout B (another path, another output base): 100% remote cache hits"
t0=$(date +%s)
run_builds b --config=remote --config=minimal
B_S=$(( $(date +%s) - t0 ))
for b in "${BUILDS[@]}"; do execlog "b_${b%%|*}" --all-hits; done
echo "  checkout B: ${B_S}s"

step "remote: nvcc's objects are bit-identical between the two checkouts (re-executed, not taken from the cache)"
bz b_reexec build --config=remote --noremote_accept_cached --@cuda//:version=12.4.1 --@cuda//:cudadevrt=none --config=x86_64 \
  --execution_log_json_file=/src/execlog-b_reexec.json //:saxpy_test //:rdc_test
python3 "$ROOT/integration/remote/execlog.py" --same-outputs "$SID/src/execlog-cold_v124.json" "$SID/src/execlog-b_reexec.json" \
  >"$LOG/identical.txt" || { cat "$LOG/identical.txt" >&2; fail "nvcc outputs differ between checkouts"; }
sed 's/^/  /' "$LOG/identical.txt"

step "remote: BuildGrid as a plain gRPC cache (--remote_cache, no executor): checkout B hits every action"
bz b_clean clean
bz b_grpccache test --config=grpccache --@cuda//:version=12.4.1 --@cuda//:cudadevrt=none --config=x86_64 \
  --execution_log_json_file=/src/execlog-b_grpccache.json //:saxpy_test //:rdc_test //:cublas_test
execlog b_grpccache --all-hits

step "remote: nginx WebDAV as Bazel's HTTP cache: filled by checkout A, hit by checkout B"
NGINX_PORT=$(free_port)
mkdir -p "$RSTATE/nginx/cache" "$RSTATE/nginx/tmp"
cat >"$RSTATE/nginx/nginx.conf" <<EOF
daemon off;
# Workers as root, like the master: the cache is in root's scratch folder
# (mode 700), which nginx's default user nobody cannot enter.
user root;
worker_processes 2;
error_log $RSTATE/nginx/error.log;
pid $RSTATE/nginx/nginx.pid;
events { worker_connections 256; }
http {
  access_log $RSTATE/nginx/access.log;
  client_body_temp_path $RSTATE/nginx/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $RSTATE/nginx/cache;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
EOF
nginx -c "$RSTATE/nginx/nginx.conf" >"$LOG/nginx.out" 2>&1 &
NGINX_PID=$!
sleep 1
kill -0 "$NGINX_PID" 2>/dev/null || { cat "$LOG/nginx.out" "$RSTATE/nginx/error.log" >&2; fail "nginx did not start"; }
echo "  $(nginx -v 2>&1) on 127.0.0.1:$NGINX_PORT, WebDAV PUT into $RSTATE/nginx/cache"
HTTP_CACHE="--remote_cache=http://127.0.0.1:$NGINX_PORT --@cuda//:version=12.4.1 --@cuda//:cudadevrt=none --config=x86_64"
CWS=$WSA
bz a_http_clean clean
bz a_http test $HTTP_CACHE //:saxpy_test //:rdc_test
n=$(find "$RSTATE/nginx/cache" -type f | wc -l)
[ "$n" -gt 0 ] || fail "checkout A put nothing into the HTTP cache ($RSTATE/nginx/error.log: $(tail -n 3 "$RSTATE/nginx/error.log"))"
echo "  checkout A filled it: $(find "$RSTATE/nginx/cache" -type f | wc -l) entries, $(du -sb "$RSTATE/nginx/cache" | cut -f1) bytes"
CWS=$WSB
bz b_clean2 clean
bz b_http test $HTTP_CACHE --execution_log_json_file=/src/execlog-b_http.json //:saxpy_test //:rdc_test
execlog b_http --all-hits

step "remote: the HTTP cache goes away mid-build: --remote_local_fallback builds locally, Bazel's message shown"
CWS=$WSA
bz a_clean clean
: >"$RSTATE/nginx/access.log"
bazel_cmd test $HTTP_CACHE --remote_local_fallback --noremote_accept_cached //:saxpy_test //:rdc_test \
  >"$LOG/a_http_gone.out" 2>"$LOG/a_http_gone.err" &
BZ=$!
# Killed once the build has talked to it.
for _ in $(seq 600); do [ -s "$RSTATE/nginx/access.log" ] && break; sleep 0.2; done
[ -s "$RSTATE/nginx/access.log" ] || { kill "$BZ"; fail "the build never reached the HTTP cache"; }
kill "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=
echo "  nginx killed after $(wc -l <"$RSTATE/nginx/access.log") request(s) of the build"
wait "$BZ" || { tail -n 30 "$LOG/a_http_gone.err" >&2; fail "the build failed when the HTTP cache went away (--remote_local_fallback)"; }
grep -E 'WARNING: .*(Remote Cache|remote cache|Connection refused|connection refused)' "$LOG/a_http_gone.err" | head -n 2 | sed 's/^/  /'
grep -qE 'WARNING: .*(Remote Cache|remote cache|Connection refused|connection refused)' "$LOG/a_http_gone.err" \
  || fail "the cache server went away and Bazel said nothing: $LOG/a_http_gone.err"

step "remote: an undeclared header builds in the client's sandbox, fails remotely (the workers' root has no workspace)"
# Remotely first: a local success would leave the output up to date.
bz_fails undeclared build --config=remote --config=x86_64 --@cuda//:version=12.4.1 //:undeclared
expect_in "$LOG/undeclared.err" "undeclared.h: No such file or directory"
echo "  remotely: $(grep -m 1 'undeclared.h: No such file or directory' "$LOG/undeclared.err")"
bz undeclared_local build --config=x86_64 --@cuda//:version=12.4.1 //:undeclared
echo "  locally: $(processes "$LOG/undeclared_local.err")"

step "remote: the action's timeout: the worker kills a test at --test_timeout"
bz_fails timeout test --config=remote --config=x86_64 --test_timeout=5 //:sleepy_test
expect_in "$LOG/timeout.out" "TIMEOUT"
echo "  $(grep -m 1 -o '//:sleepy_test .*TIMEOUT.*' "$LOG/timeout.out" | tr -s ' ')"

step "remote: a worker whose root lacks the host compiler: the error names it"
cp -al "$WROOT" "$RSTATE/nogcc-root" 2>/dev/null || { rm -rf "$RSTATE/nogcc-root"; cp -a --one-file-system "$WROOT" "$RSTATE/nogcc-root"; }
rm -f "$RSTATE/nogcc-root/usr/bin/gcc-$GCC" "$RSTATE/nogcc-root/usr/bin/g++-$GCC" "$RSTATE/nogcc-root/usr/bin/x86_64-linux-gnu-gcc-$GCC" "$RSTATE/nogcc-root/usr/bin/x86_64-linux-gnu-g++-$GCC"
rm -rf "$RSTATE/nogcc-root/build" "$RSTATE/nogcc-root"/.cache-*
for m in proc dev; do mount --bind "/$m" "$RSTATE/nogcc-root/$m"; done
# Only this worker serves the next build: the others are stopped.
for p in "${WORKER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
WORKER_PIDS=()
start_worker nogcc "$RSTATE/nogcc-root" OSFamily=linux
sleep 2
bz_fails nogcc build --config=remote --noremote_accept_cached --config=x86_64 --@cuda//:version=12.4.1 //:cudart_c_test
grep -E "gcc-$GCC|host compiler" "$LOG/nogcc.err" | head -n 3 | sed 's/^/  /'
grep -iqE "gcc-$GCC.*(no such file|not found)" "$LOG/nogcc.err" \
  || fail "a root without gcc-$GCC: the error does not name it ($LOG/nogcc.err)"
kill "${WORKER_PIDS[0]}" 2>/dev/null; WORKER_PIDS=()

step "remote: a worker lost mid-action: BuildGrid gives the action to the other worker"
start_worker w1 "$WROOT" OSFamily=linux
start_worker w2 "$WROOT" OSFamily=linux
sleep 2
bazel_cmd build --config=remote --noremote_accept_cached //:slow >"$LOG/lost.out" 2>"$LOG/lost.err" &
BZ=$!
# The victim: the worker whose process tree holds the action's sleep.
victim=
for _ in $(seq 120); do
  for p in $(pgrep -x sleep || true); do
    [ "$(readlink "/proc/$p/root" 2>/dev/null)" = "$WROOT" ] || continue
    q=$p
    while [ -n "$q" ] && [ "$q" -gt 1 ]; do
      q=$(awk '/^PPid:/{print $2}' "/proc/$q/status" 2>/dev/null || true)
      [ "$q" = "${WORKER_PIDS[0]}" ] && victim=0
      [ "$q" = "${WORKER_PIDS[1]}" ] && victim=1
      [ -z "$victim" ] || break 3
    done
  done
  sleep 0.5
done
[ -n "$victim" ] || { kill "$BZ"; fail "no worker took the slow action (logs: $RSTATE/w1.log $RSTATE/w2.log)"; }
names=(w1 w2)
other=$((1 - victim))
before=$(grep -c 'argv0="/bin/bash"' "$RSTATE/${names[$other]}.log" || true)
kill -9 "${WORKER_PIDS[$victim]}"
for p in $(chroot_pids "$WROOT"); do kill -9 "$p" 2>/dev/null; done
echo "  killed worker ${names[$victim]} (kill -9) mid-action"
wait "$BZ" || { tail -n 30 "$LOG/lost.err" >&2; fail "the build did not survive a lost worker"; }
after=$(grep -c 'argv0="/bin/bash"' "$RSTATE/${names[$other]}.log" || true)
[ "$after" -gt "$before" ] || fail "the slow action did not run on ${names[$other]} after ${names[$victim]} was lost"
other=${names[$other]}
echo "  //:slow completed on $other; $(processes "$LOG/lost.err")"

{
  echo "cold_s=$COLD_S warm_minimal_s=$WARM_S checkout_b_s=$B_S"
  echo "cas_bytes_after_cold=$COLD_CAS client_out_cold=$COLD_OUT client_out_warm_minimal=$WARM_OUT"
} | tee "$LOG/remote-figures.txt" | sed 's/^/  /'
remote_cleanup
WORKER_PIDS=() NGINX_PID=
