package doctor

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// glibcC23 is the first glibc whose <math.h> declares C23 functions that
// CUDA 12's crt/math_functions.h declares too, with another exception
// specification (plugins/redist's glibc-2.41-math-functions patch).
var glibcC23 = [2]int{2, 41}

// The CUDA versions the generated repositories patch (plugins/redist:
// since 11.7, until 13.0, which fixed the header itself).
var (
	patchedSince = version.MustParse("11.7")
	fixedIn      = version.MustParse("13.0")
)

var glibcVersion = regexp.MustCompile(`([0-9]+)\.([0-9]+)`)

// Glibc reports the C library's version (getconf GNU_LIBC_VERSION) against
// what CUDA's headers need: glibc 2.41 and newer declare sinpi, cospi (and
// from 2.42 rsqrt) noexcept, and nvcc from CUDA 11.7 to 12.9 then fails on
// its own crt/math_functions.h. The repositories cudapkgs generates patch
// the header; an installed CUDA is used as it is, and releases before 11.7
// are not patched.
func Glibc(ctx context.Context, env Env) []Finding {
	const check = "glibc"
	out, err := env.run(ctx, "getconf", "GNU_LIBC_VERSION")
	m := glibcVersion.FindStringSubmatch(out)
	if err != nil || m == nil || !strings.Contains(out, "glibc") {
		why := strings.TrimSpace(out)
		if err != nil {
			why = err.Error()
		}
		return []Finding{{Check: check, Status: Info, Summary: fmt.Sprintf("no glibc version (getconf GNU_LIBC_VERSION: %s): NVIDIA's Linux archives need glibc", why)}}
	}
	major, minor := atoi(m[1]), atoi(m[2])
	v := fmt.Sprintf("%d.%d", major, minor)
	if major < glibcC23[0] || major == glibcC23[0] && minor < glibcC23[1] {
		return []Finding{{Check: check, Status: OK, Summary: fmt.Sprintf("glibc %s: older than 2.41, CUDA's crt/math_functions.h compiles against it unchanged", v)}}
	}
	base := "glibc 2.41 and newer declare sinpi and cospi (from 2.42 also rsqrt) noexcept, which nvcc of CUDA 11.7 to 12.9 refuses in its crt/math_functions.h (\"exception specification is incompatible\")"
	installed := "an installed CUDA (--local-cuda, cuda.local) is used as it is: use CUDA 13.0 or newer there, or take the compiler from the downloads (--local-components without it)"
	if len(env.CUDA) == 0 {
		return []Finding{{Check: check, Status: Info, Summary: "glibc " + v + ": " + base + "; the repositories cudapkgs generates patch the header (glibc-2.41-math-functions), CUDA 13.0 fixed it",
			Fix: installed + "; CUDA before 11.7 is not patched"}}
	}
	var out2 []Finding
	for _, c := range env.CUDA {
		switch {
		case !c.Less(fixedIn):
			out2 = append(out2, Finding{Check: check, Status: OK, Summary: fmt.Sprintf("glibc %s with CUDA %s: its headers know glibc 2.41's declarations", v, c)})
		case !c.Less(patchedSince):
			out2 = append(out2, Finding{Check: check, Status: OK, Summary: fmt.Sprintf("glibc %s with CUDA %s: the generated repositories patch crt/math_functions.h (glibc-2.41-math-functions)", v, c),
				Fix: installed})
		default:
			out2 = append(out2, Finding{Check: check, Status: Warn, Summary: fmt.Sprintf("glibc %s with CUDA %s: %s; cudapkgs does not patch releases before 11.7", v, c, base),
				Fix: "use CUDA 11.7 or newer, or build on a system with glibc older than 2.41 (a container, a remote executor)"})
		}
	}
	return out2
}
