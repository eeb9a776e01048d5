# The workers' root (integration/remote): a minimal Debian sid with the host
# compiler the client's toolchains name (gcc-$GCC, for x86_64 and aarch64)
# and qemu-user for the cross tests, and nothing else: no CUDA of any kind,
# no Bazel, no output base, no workspace. Every action runs chrooted into it,
# so an undeclared input or a path into the client's machine fails there.
# Sourced by integration/remote/remote.sh; expects MIRROR, GCC, LOG, fail.
# Built once and kept (CUDAPKGS_WORKER_ROOT, default
# /var/tmp/cudapkgs-worker-root), like the client's sid chroot; rebuilt when
# the package list changes.

worker_root_packages() {
  echo bash coreutils libc6-dev binutils gcc-$GCC g++-$GCC \
    libc6-dev-arm64-cross binutils-aarch64-linux-gnu gcc-$GCC-aarch64-linux-gnu g++-$GCC-aarch64-linux-gnu \
    qemu-user
}

# worker_root DIR: makes DIR the workers' root, or reuses it.
worker_root() {
  local dir=$1 want
  want=$(worker_root_packages)
  if [ -f "$dir/.cudapkgs-worker-root" ] && [ "$(cat "$dir/.cudapkgs-worker-root")" = "$want" ]; then
    echo "  reusing $dir ($want)"
  else
    [ "$dir" != / ] || fail "the workers' root must not be /"
    unmount_all "$dir" 2>/dev/null || true
    rm -rf --one-file-system "$dir"
    local t0=$SECONDS
    debootstrap --variant=minbase sid "$dir" "$MIRROR" >"$LOG/worker-debootstrap.log" 2>&1 \
      || { tail -n 20 "$LOG/worker-debootstrap.log" >&2; fail "debootstrap of the workers' root"; }
    echo "deb $MIRROR sid main" >"$dir/etc/apt/sources.list"
    echo 'Acquire::Check-Valid-Until "false";' >"$dir/etc/apt/apt.conf.d/99cudapkgs-integration"
    cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    mount -t proc proc "$dir/proc"
    local rc=0
    chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
      sh -c "apt-get -qq update && apt-get install -y -qq --no-install-recommends $want && apt-get clean" \
      >"$LOG/worker-apt.log" 2>&1 || rc=$?
    umount "$dir/proc"
    [ "$rc" = 0 ] || { tail -n 20 "$LOG/worker-apt.log" >&2; fail "apt-get install in the workers' root"; }
    echo "$want" >"$dir/.cudapkgs-worker-root"
    echo "  built $dir in $((SECONDS - t0))s ($want)"
  fi
  # What the root must not have: any CUDA, any Bazel.
  local found
  found=$(cd "$dir" && find usr opt -maxdepth 4 \( -iname 'nvcc' -o -iname 'libcudart*' -o -iname 'cuda_runtime*.h' -o -iname 'bazel*' -o -name 'cuda' \) 2>/dev/null | head -n 5)
  [ -z "$found" ] || fail "the workers' root has CUDA or Bazel: $found"
  echo "  $(du -sh --one-file-system --exclude=build --exclude='.cache-*' "$dir" | cut -f1) in the workers' root: no nvcc, no libcudart, no cuda_runtime.h, no Bazel"
}
