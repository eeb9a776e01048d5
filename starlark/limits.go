package starlark

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The memory budget is only as good as the memory the process can really
// get: a 1 GiB budget in a process with 600 MiB of address space left ends
// in a Go crash (fatal error: out of memory, or a thread that cannot be
// created), not in the budget's message. So a run's budget is the smaller
// of the configured one and what the process can still get, read when the
// run starts:
//
//   - the address space left under RLIMIT_AS (ulimit -v, prlimit --as):
//     the limit less the address space already mapped (/proc/self/statm);
//   - the memory left in the process's cgroup: memory.max less
//     memory.current, for the cgroup and each one above it (cgroup v2), or
//     memory.limit_in_bytes less memory.usage_in_bytes (cgroup v1).
//
// Of what is left, headroom is kept for the rest of the process (thread
// stacks, the runtime, what the caller does after the run), and the budget
// is a quarter of the rest. The heap the budget measures is live data; Go's
// collector lets garbage grow as large before it collects (GOGC=100), and
// the address space a heap takes is more again: each large block (a dict's
// table as it doubles, a list's array) is mapped fresh and contiguous,
// next to the smaller ones it replaced, and Go does not unmap what it
// frees. Under prlimit --as=2G, half the rest still let a growing dict
// crash the Go runtime (about one run in 20); a quarter did not in 50.
// Elsewhere than Linux, RLIMIT_AS is read where the system has one
// (the BSDs, macOS) and cgroups do not exist; Windows enforces the
// configured budget alone.

// memoryHeadroom is kept out of the budget for the rest of the process.
const memoryHeadroom = 128 << 20

// memoryLimit is what a process's limits leave for a run's heap.
type memoryLimit struct {
	avail int64  // bytes the process can still get
	what  string // which limit: "the address-space limit (RLIMIT_AS) of 2.0 GiB"
}

// budgetWithin is the budget that fits in the limit: configured, or less.
func (l memoryLimit) budgetWithin(configured int64) int64 {
	if l.what == "" {
		return configured
	}
	return max(min(configured, (l.avail-memoryHeadroom)/4), 1<<20)
}

// processLimits reads the limits of this process that bound its memory,
// the tightest first; none where nothing is limited.
func processLimits() memoryLimit {
	var best memoryLimit
	consider := func(avail int64, what string) {
		if best.what == "" || avail < best.avail {
			best = memoryLimit{max(avail, 0), what}
		}
	}
	if cur, ok := addressSpaceLimit(); ok && cur < 1<<62 {
		consider(int64(cur)-mappedBytes(), fmt.Sprintf("the address-space limit (RLIMIT_AS) of %s", byteSize(int64(cur))))
	}
	for _, c := range cgroupLimits() {
		consider(c.avail, c.what)
	}
	return best
}

// mappedBytes is the process's address space now (0 where unknown).
func mappedBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// cgroupLimits are the memory limits of the process's cgroups, as memory
// left, read from /proc/self/cgroup and /sys/fs/cgroup.
func cgroupLimits() []memoryLimit {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []memoryLimit
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // cgroup v2
			for dir := parts[2]; ; dir = filepath.Dir(dir) {
				base := filepath.Join("/sys/fs/cgroup", dir)
				if l, ok := cgroupLeft(base, "memory.max", "memory.current"); ok {
					out = append(out, l)
				}
				if dir == "/" || dir == "." {
					break
				}
			}
		case strings.Contains(","+parts[1]+",", ",memory,"): // cgroup v1
			for _, base := range []string{filepath.Join("/sys/fs/cgroup/memory", parts[2]), "/sys/fs/cgroup/memory"} {
				if l, ok := cgroupLeft(base, "memory.limit_in_bytes", "memory.usage_in_bytes"); ok {
					out = append(out, l)
					break
				}
			}
		}
	}
	return out
}

// cgroupLeft reads one cgroup's limit and usage; false when it has no
// limit (or none can be read).
func cgroupLeft(dir, limitFile, usageFile string) (memoryLimit, bool) {
	limit, ok := readBytes(filepath.Join(dir, limitFile))
	if !ok || limit >= 1<<62 {
		return memoryLimit{}, false
	}
	usage, _ := readBytes(filepath.Join(dir, usageFile))
	return memoryLimit{limit - usage, fmt.Sprintf("the memory limit of cgroup %s (%s) of %s", dir, limitFile, byteSize(limit))}, true
}

func readBytes(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
