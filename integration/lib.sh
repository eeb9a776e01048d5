# Shell helpers shared by the integration tiers (integration/run: Bazel 4.2.3,
# WORKSPACE; integration/bazel7: Bazel 7.x with bzlmod in a Debian sid chroot).
# Sourced, not run:
#
#   . "$ROOT/integration/lib.sh"
#
# The sourcing script sets LOG (the folder of the Bazel logs) before the first
# bz, and BAZEL (the bazel binary) unless it redefines bazel_cmd. Two hooks
# may be redefined after sourcing, for a Bazel that runs elsewhere (a chroot):
#   bazel_cmd ARGS...  runs Bazel in the current workspace
#   in_ws CMD ARGS...  runs a command (strings, file, readelf) where Bazel's
#                      output paths (bazel-bin/...) resolve
# TIER names the script in messages (default: integration/<script name>).

TIER=${TIER:-integration/$(basename "$0")}
START=$(date +%s)
STEP_START=$START

step() {
  local now; now=$(date +%s)
  echo "== [$((now - START))s] $*"
  STEP_START=$now
}
fail() {
  echo "$TIER: FAIL: $*" >&2
  exit 1
}

bazel_cmd() { "$BAZEL" "$@"; }
in_ws() { "$@"; }

# bz NAME ARGS...: runs bazel, output in $LOG/NAME.{out,err}; fails the run on error.
bz() {
  local name=$1; shift
  if ! bazel_cmd "$@" >"$LOG/$name.out" 2>"$LOG/$name.err"; then
    tail -n 40 "$LOG/$name.err" >&2
    fail "bazel $* (log: $LOG/$name.err)"
  fi
}
# bz_fails NAME ARGS...: bazel must fail; stderr in $LOG/NAME.err.
bz_fails() {
  local name=$1; shift
  if bazel_cmd "$@" >"$LOG/$name.out" 2>"$LOG/$name.err"; then
    fail "bazel $* succeeded; it must fail"
  fi
}
expect_in() { # FILE TEXT
  grep -qF -- "$2" "$1" || { tail -n 30 "$1" >&2; fail "$(basename "$1") does not contain: $2"; }
}
nvcc_fixture() { # BINARY: the nvcc-fixture string the fake nvcc embedded
  in_ws strings -a "$1" | grep -m 1 '^nvcc-fixture:' || true
}
expect_nvcc() { # BINARY WANT (a prefix of the embedded string)
  local got; got=$(nvcc_fixture "$1")
  case "$got" in "$2"*) ;; *) fail "$1 was compiled by '$got', want '$2…'" ;; esac
}
check_driver_api() { # BINARY: linked against the libcuda.so stub, it loads the host's libcuda.so.1
  local bin=$1 dyn
  dyn=$(in_ws readelf -d "$bin")
  grep -q 'NEEDED.*\[libcuda.so.1\]' <<<"$dyn" || fail "$bin does not need libcuda.so.1"
  if grep -E 'R(UN)?PATH' <<<"$dyn" | grep -q stubs; then
    fail "$bin has a stubs folder in its RUNPATH: $(grep -E 'R(UN)?PATH' <<<"$dyn")"
  fi
  if in_ws find -L "$bin.runfiles" -name 'libcuda.so*' 2>/dev/null | grep -q .; then
    fail "the libcuda stub is in $bin's runfiles"
  fi
  # Without a driver the loader's "cannot open" is what is expected; a host
  # with one answers cuInit with its own code. The stub's 34
  # (CUDA_ERROR_STUB_LIBRARY) never.
  in_ws "$bin" >"$LOG/driver_api.out" 2>"$LOG/driver_api.err" || true
  cat "$LOG/driver_api.out" "$LOG/driver_api.err"
  if grep -q 'cuInit: 34' "$LOG/driver_api.out"; then
    fail "$bin loaded the stub (CUDA_ERROR_STUB_LIBRARY)"
  fi
  grep -q 'libcuda.so.1: cannot open' "$LOG/driver_api.err" || grep -q 'cuInit: ' "$LOG/driver_api.out" \
    || fail "$bin neither ran nor failed to load libcuda.so.1"
  echo "  NEEDED libcuda.so.1, no stub in RUNPATH or runfiles"
}

# aq NAME ARGS...: bazel aquery ARGS, as JSON in $LOG/NAME.json.
aq() {
  local name=$1; shift
  bazel_cmd aquery --output=jsonproto "$@" >"$LOG/$name.json" 2>"$LOG/$name.err" \
    || { tail -n 40 "$LOG/$name.err" >&2; fail "bazel aquery $* (log: $LOG/$name.err)"; }
}
# cmdline NAME TARGET MNEMONIC: the command line of TARGET's MNEMONIC
# actions in aq's $LOG/NAME.json, one line each, arguments separated and
# ended by one space (so " -G " matches a whole argument).
cmdline() {
  python3 - "$LOG/$1.json" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
labels = {t["id"]: t["label"] for t in d.get("targets", [])}
for a in d.get("actions", []):
    if labels.get(a["targetId"], "").endswith(sys.argv[2]) and a["mnemonic"] == sys.argv[3]:
        print(" " + " ".join(a.get("arguments", [])) + " ")
PY
}
# expect_args NAME TARGET MNEMONIC WANT... : every WANT (" -G ", "!-DX") on
# the command line of TARGET's MNEMONIC action; "!" means absent.
expect_args() {
  local name=$1 target=$2 mnemonic=$3 line w; shift 3
  line=$(cmdline "$name" "$target" "$mnemonic")
  [ -n "$line" ] || fail "aquery $name: no $mnemonic action of $target"
  for w in "$@"; do
    case "$w" in
      '!'*) if grep -qF -- "${w#!}" <<<"$line"; then fail "aquery $name: $target's $mnemonic has '${w#!}': $line"; fi ;;
      *) grep -qF -- "$w" <<<"$line" || fail "aquery $name: $target's $mnemonic lacks '$w': $line" ;;
    esac
  done
  echo "  $mnemonic $target:$(printf " '%s'" "$@")"
}
processes() { # FILE: Bazel's last "INFO: N processes: ..." line
  grep -E '^INFO: [0-9]+ process(es)?: ' "$1" | tail -n 1 || true
}

# expect_log TARGET TEXT: the test's last log (copied to
# $LOG/$TESTLOG-TARGET.log; TESTLOG names the scenario set) has TEXT.
expect_log() {
  in_ws cat "bazel-testlogs/$1/test.log" >"$LOG/$TESTLOG-$1.log" 2>/dev/null || fail "no test log of //:$1"
  expect_in "$LOG/$TESTLOG-$1.log" "$2"
  echo "  //:$1: $(grep -F -- "$2" "$LOG/$TESTLOG-$1.log" | head -n 1)"
}
# serve_dir DIR LOGFILE: Python's HTTP server for DIR on a free port of
# 127.0.0.1, in the background; sets HTTP_PID and PORT, fails if it does not
# start.
# Pages under /pypi/simple/ (integration/realbin's PEP 691 index) are served
# with PEP 691's Content-Type, which cudapkgs requires.
serve_dir() {
  python3 -u -c '
import functools, http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def guess_type(self, path):
        if self.path.startswith("/pypi/simple/"):
            return "application/vnd.pypi.simple.v1+json"
        return super().guess_type(path)
http.server.test(HandlerClass=functools.partial(H, directory=sys.argv[1]), port=0, bind="127.0.0.1")
' "$1" >"$2" 2>&1 &
  HTTP_PID=$!
  PORT=
  for _ in $(seq 50); do
    PORT=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$2" | head -n 1)
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  fail "the HTTP server for $1 did not start: $(cat "$2")"
}

# need_go: Go on PATH (CI machines have it in /usr/local/go/bin).
need_go() {
  export PATH="$PATH:/usr/local/go/bin"
  command -v go >/dev/null || fail "go is not installed (expected on PATH or in /usr/local/go/bin)"
}
# apt_install PKG...: installs the packages given (none: nothing to do); needs root.
apt_install() {
  [ $# -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || fail "missing packages ($*); install them or run as root"
  echo "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || fail "apt-get install $*"
}
# realbin OUT [ARGS...]: NVIDIA's binaries, repacked by integration/realbin
# into OUT (downloads and archives cached outside the clone); the tool's
# output in $LOG/realbin.{out,err}. Installs xz and pip when missing.
realbin() {
  local out=$1; shift
  command -v xz >/dev/null || apt_install xz-utils
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  (cd "$ROOT" && go run ./integration/realbin -out "$out" "$@") >"$LOG/realbin.out" 2>"$LOG/realbin.err" \
    || { tail -n 30 "$LOG/realbin.err" >&2; fail "integration/realbin (log: $LOG/realbin.err)"; }
}
# patch_rules_cc DIR: a copy of Debian's rules_cc 0.0.4 at DIR, patched for Bazel
# 4.2.3, which lacks the use_cpp_toolchain it calls.
patch_rules_cc() {
  cp -r /usr/share/bazel/rules/cc "$1"
  local f
  for f in cc_flags_supplier compiler_flag; do
    sed -i 's/, "use_cpp_toolchain")/)/; s#toolchains = use_cpp_toolchain(),#toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],#' \
      "$1/cc/private/rules_impl/$f.bzl"
  done
  ! grep -rq use_cpp_toolchain "$1/cc/private/rules_impl/" || fail "rules_cc patch did not apply"
}
