package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/gpu"
)

// compilerNames are the host compilers nvcc can be given (-ccbin): gcc,
// g++, clang, clang++, each also with a version suffix (gcc-13, clang-18).
var compilerNames = regexp.MustCompile(`^(gcc|g\+\+|clang|clang\+\+)(-[0-9]+(\.[0-9]+)*)?$`)

// Compiler is a host compiler found on PATH.
type Compiler struct {
	Path   string // as found on PATH
	Names  []string
	Family string // gcc or clang
	Major  int
}

// FindCompilers lists the host compilers on env.Path with their family and
// major version, read from their predefined macros (CC -dM -E -x c
// /dev/null: __clang_major__, else __GNUC__), as the generated Bazel
// repositories read them: clang answers -dumpversion with 4.2.1. Names that
// lead to the same program are one compiler. Programs that do not answer
// are returned with Major 0.
func FindCompilers(ctx context.Context, env Env) []Compiler {
	var out []Compiler
	byReal := map[string]int{}
	for _, p := range look(env.Path, compilerNames) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			real = p
		}
		if i, ok := byReal[real]; ok {
			out[i].Names = append(out[i].Names, filepath.Base(p))
			continue
		}
		c := Compiler{Path: p, Names: []string{filepath.Base(p)}}
		c.Family, c.Major = macros(ctx, env, p)
		byReal[real] = len(out)
		out = append(out, c)
	}
	return out
}

var (
	clangMajor = regexp.MustCompile(`(?m)^#define __clang_major__ ([0-9]+)\s*$`)
	gnucMajor  = regexp.MustCompile(`(?m)^#define __GNUC__ ([0-9]+)\s*$`)
)

func macros(ctx context.Context, env Env, prog string) (family string, major int) {
	out, err := env.run(ctx, prog, "-dM", "-E", "-x", "c", os.DevNull)
	if err != nil {
		return "", 0
	}
	if m := clangMajor.FindStringSubmatch(out); m != nil {
		return "clang", atoi(m[1])
	}
	if m := gnucMajor.FindStringSubmatch(out); m != nil {
		return "gcc", atoi(m[1])
	}
	return "", 0
}

// HostCompilers reports each host compiler on PATH and the CUDA versions
// whose nvcc accepts it: against env.CUDA when given (a warning, with the
// fix, for each refusal), else over the whole host-compiler table. The
// compiler Bazel's C++ toolchain uses by default ($CC, else gcc) is marked.
func HostCompilers(ctx context.Context, env Env) []Finding {
	const check = "host compiler"
	found := FindCompilers(ctx, env)
	if len(found) == 0 {
		return []Finding{{Check: check, Status: Warn, Summary: "no gcc, g++, clang or clang++ on PATH: nvcc needs a host compiler",
			Fix: "install one within nvcc's range (Debian: apt-get install g++-13 for CUDA 12.4 to 13.x)"}}
	}
	def := env.getenv("CC")
	defWhy := "from CC"
	if def == "" {
		def, defWhy = "gcc", "Bazel's default, CC not set"
	}
	defPath := def
	if !strings.Contains(def, "/") {
		defPath = lookOne(env.Path, def)
	}
	defReal, _ := filepath.EvalSymlinks(defPath)

	rows := gpu.HostCompilerTable()
	var out []Finding
	for _, c := range found {
		name := c.Path
		if len(c.Names) > 1 {
			name += " (also " + strings.Join(c.Names[1:], ", ") + ")"
		}
		real, _ := filepath.EvalSymlinks(c.Path)
		isDefault := defPath != "" && (c.Path == defPath || real != "" && real == defReal)
		if isDefault {
			name += ", the C++ toolchain's compiler (" + defWhy + ")"
		}
		if c.Family == "" {
			out = append(out, Finding{Check: check, Status: Info, Summary: name + ": no version (its predefined macros name neither GCC nor Clang)"})
			continue
		}
		what := fmt.Sprintf("%s %d", c.Family, c.Major)
		if len(env.CUDA) == 0 {
			runs := cudaRuns(rows, func(r gpu.HostCompilers) bool {
				lo, hi, _ := r.Range(c.Family)
				return c.Major >= lo && c.Major <= hi
			})
			if runs == "" {
				out = append(out, Finding{Check: check, Status: Warn, Summary: fmt.Sprintf("%s: %s, which no nvcc in cudapkgs' table accepts", name, what),
					Fix: newestInRange(c.Family, rows[len(rows)-1])})
				continue
			}
			out = append(out, Finding{Check: check, Status: OK, Summary: fmt.Sprintf("%s: %s, accepted by nvcc of CUDA %s", name, what, runs)})
			continue
		}
		var refused, fixes, instead []string
		for _, v := range env.CUDA {
			err := gpu.CheckHostCompiler(v, c.Family, c.Major)
			if err == nil {
				continue
			}
			refused = append(refused, err.Error())
			h, _ := gpu.HostCompilersFor(v)
			if !isDefault {
				continue // used only when asked for: a fact, nothing to fix
			}
			// For the C++ toolchain's compiler, the generated settings
			// repository looks for the newest g++-N in range on PATH and
			// gives it to nvcc.
			if alt := newestGxx(found, h); alt != "" {
				instead = append(instead, fmt.Sprintf("for CUDA %s nvcc gets %s instead (the newest g++-N in range on PATH, which the generated repositories look for)", v, alt))
				continue
			}
			fixes = append(fixes, fmt.Sprintf("CUDA %s: %s", v, newestInRange("gcc", h)))
		}
		if len(refused) == 0 {
			out = append(out, Finding{Check: check, Status: OK, Summary: fmt.Sprintf("%s: %s, accepted by nvcc of CUDA %s", name, what, versions(env))})
			continue
		}
		summary := fmt.Sprintf("%s: %s", name, strings.Join(refused, "; "))
		if len(instead) > 0 {
			summary += "; " + strings.Join(instead, "; ")
		}
		switch {
		case len(fixes) == 0:
			out = append(out, Finding{Check: check, Status: Info, Summary: summary})
		default:
			// Bazel would give it to nvcc, and the build fails.
			out = append(out, Finding{Check: check, Status: Warn, Summary: summary,
				Fix: strings.Join(fixes, "; ") + " (the generated repositories then find it on PATH), or pass --@cuda//:host_compiler=/usr/bin/g++-N"})
		}
	}
	return out
}

// newestGxx is the path of the newest g++-N among found that nvcc of row h
// accepts, or "".
func newestGxx(found []Compiler, h gpu.HostCompilers) string {
	best, bestMajor := "", -1
	for _, c := range found {
		if c.Family != "gcc" || c.Major <= bestMajor || c.Major < h.GCCMin || c.Major > h.GCCMax {
			continue
		}
		for _, n := range c.Names {
			if strings.HasPrefix(n, "g++-") {
				best, bestMajor = filepath.Join(filepath.Dir(c.Path), n), c.Major
				break
			}
		}
	}
	return best
}

// newestInRange says what to install for a row.
func newestInRange(family string, h gpu.HostCompilers) string {
	lo, hi, _ := h.Range(family)
	pkg := fmt.Sprintf("g++-%d", hi)
	if family == "clang" {
		pkg = fmt.Sprintf("clang-%d", hi)
	}
	return fmt.Sprintf("nvcc of CUDA %s accepts %s %d to %d: install %s (Debian: apt-get install %s)", h.CUDA, family, lo, hi, pkg, pkg)
}

func versions(env Env) string {
	s := make([]string, len(env.CUDA))
	for i, v := range env.CUDA {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}
