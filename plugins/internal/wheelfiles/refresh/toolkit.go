package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// The toolkit's wheels.txt lines are NVIDIA's own mapping of CUDA release to
// component versions: the cuda-toolkit metapackage on PyPI pins, for each
// CUDA release, every component wheel (cuda-toolkit==13.0.1 requires
// nvidia-cuda-nvcc==13.0.88.*). toolkitLines turns every release of it from
// 12.0 on into one line per component wheel version and arch that PyPI has,
// listing the releases that ship it, for the wheel names wheels.txt already
// covers.

const pypi = "https://pypi.org/pypi/"

type project struct {
	Releases map[string][]struct {
		Filename string `json:"filename"`
		Yanked   bool   `json:"yanked"`
	} `json:"releases"`
}

func getProject(name string) (project, error) {
	var p project
	resp, err := http.Get(pypi + name + "/json")
	if err != nil {
		return p, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return p, fmt.Errorf("%s%s/json: %s", pypi, name, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return p, fmt.Errorf("%s%s/json: %w", pypi, name, err)
	}
	return p, nil
}

// numeric parses a final release version (12.8.2.0); false for
// pre-releases and dev versions.
func numeric(v string) ([]int, bool) {
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// versionKey orders versions by their numbers (12.4.127.post1 after
// 12.4.127).
func versionKey(v string) []int {
	var out []int
	for _, m := range regexp.MustCompile(`\d+`).FindAllString(v, -1) {
		n, _ := strconv.Atoi(m)
		out = append(out, n)
	}
	return out
}

// pins reads the Linux component requirements of cuda-toolkit==version:
// wheel name to requirement (==13.0.88.*, <14,>=13.0.88).
func pins(cache, version string) (map[string]string, error) {
	dir, err := os.MkdirTemp(cache, "cuda-toolkit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("python3", "-m", "pip", "download", "-q", "--no-cache-dir", "--no-deps", "--only-binary=:all:",
		"-d", dir, "cuda-toolkit=="+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pip download cuda-toolkit==%s: %v\n%s", version, err, out)
	}
	whls, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
	if len(whls) != 1 {
		return nil, fmt.Errorf("cuda-toolkit==%s: pip left %d wheels", version, len(whls))
	}
	z, err := zip.OpenReader(whls[0])
	if err != nil {
		return nil, err
	}
	defer z.Close()
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".dist-info/METADATA") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, line := range strings.Split(string(raw), "\n") {
			req, ok := strings.CutPrefix(strings.TrimSpace(line), "Requires-Dist:")
			if !ok {
				continue
			}
			spec, marker, _ := strings.Cut(req, ";")
			if !strings.Contains(marker, "linux") {
				continue
			}
			m := regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s*\(?([^)]*)\)?\s*$`).FindStringSubmatch(spec)
			if m == nil {
				return nil, fmt.Errorf("cuda-toolkit==%s: requirement %q", version, req)
			}
			out[m[1]] = strings.TrimSpace(m[2])
		}
		return out, nil
	}
	return nil, fmt.Errorf("cuda-toolkit==%s: no METADATA", version)
}

var (
	pinExact = regexp.MustCompile(`^==\s*([\d.]*\d)(\.\*)?$`)
	pinFloor = regexp.MustCompile(`>=\s*([\d.]*\d)`)
)

// resolve is the wheel version a requirement names: ==X.* is X or its
// .postN rebuild (the newest), ==X and >=X (nvJitLink's <14,>=13.0.88) are X.
func resolve(p project, req string) (string, error) {
	base, star := "", false
	if m := pinExact.FindStringSubmatch(req); m != nil {
		base, star = m[1], m[2] != ""
	} else if m := pinFloor.FindStringSubmatch(req); m != nil {
		base = m[1]
	} else {
		return "", fmt.Errorf("requirement %q is not ==X, ==X.* or >=X", req)
	}
	post := regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `(\.post\d+)?$`)
	best := ""
	for v := range p.Releases {
		if v == base || (star && post.MatchString(v)) {
			if best == "" || slices.Compare(versionKey(v), versionKey(best)) > 0 {
				best = v
			}
		}
	}
	if best == "" {
		return "", fmt.Errorf("no release %s on PyPI", req)
	}
	return best, nil
}

// toolkitLines returns wheels.txt's cuda lines from the cuda-toolkit
// releases from 12.0 on, for the wheel names specs' cuda lines cover; a
// wheel's package is the one its latest line at or before the release says
// (nvidia-cuda-cccl is cuda_cccl, and cccl from 13.3).
func toolkitLines(cache string, specs []wheelfiles.Spec) ([]string, error) {
	type named struct {
		release []int
		pkgs    string
	}
	byWheel := map[string][]named{}
	for _, s := range specs {
		if s.Product != "cuda" {
			continue
		}
		for _, r := range append([]string{s.Release}, s.Also...) {
			byWheel[s.Wheel] = append(byWheel[s.Wheel], named{versionKey(r), strings.Join(s.Packages, ",")})
		}
	}
	for _, ns := range byWheel {
		sort.SliceStable(ns, func(i, j int) bool { return slices.Compare(ns[i].release, ns[j].release) < 0 })
	}
	tk, err := getProject("cuda-toolkit")
	if err != nil {
		return nil, err
	}
	var versions []string
	for v := range tk.Releases {
		if n, ok := numeric(v); ok && n[0] >= 12 {
			versions = append(versions, v)
		}
	}
	sort.Slice(versions, func(i, j int) bool { return slices.Compare(versionKey(versions[i]), versionKey(versions[j])) < 0 })

	type row struct {
		wheel, arch, pkgs string
		releases          []string
	}
	rows := map[string]*row{}
	projects := map[string]project{}
	for _, tv := range versions {
		release := strings.Join(strings.Split(tv, ".")[:3], ".") // 12.8.2.0 is 12.8.2
		reqs, err := pins(cache, tv)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(reqs))
		for n := range reqs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			ns, covered := byWheel[name]
			if !covered {
				continue
			}
			p, ok := projects[name]
			if !ok {
				if p, err = getProject(name); err != nil {
					return nil, err
				}
				projects[name] = p
			}
			v, err := resolve(p, reqs[name])
			if err != nil {
				return nil, fmt.Errorf("cuda-toolkit==%s: %s: %w", tv, name, err)
			}
			pkgs := ns[0].pkgs
			for _, n := range ns {
				if slices.Compare(n.release, versionKey(release)) <= 0 {
					pkgs = n.pkgs
				}
			}
			for _, arch := range []string{"x86_64", "aarch64"} {
				has := false
				for _, f := range p.Releases[v] {
					has = has || (!f.Yanked && strings.HasSuffix(f.Filename, ".whl") && strings.Contains(f.Filename, arch))
				}
				if !has {
					continue
				}
				k := wheelfiles.SpecKey(name, v, arch)
				if rows[k] == nil {
					rows[k] = &row{wheel: name + "==" + v, arch: arch, pkgs: pkgs}
				}
				if r := rows[k]; !slices.Contains(r.releases, release) {
					r.releases = append(r.releases, release)
				}
			}
		}
	}
	list := make([]*row, 0, len(rows))
	for _, r := range rows {
		list = append(list, r)
	}
	// By first release, package, wheel, then x86_64 before aarch64.
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if c := slices.Compare(versionKey(a.releases[0]), versionKey(b.releases[0])); c != 0 {
			return c < 0
		}
		if a.pkgs != b.pkgs {
			return a.pkgs < b.pkgs
		}
		if a.wheel != b.wheel {
			return a.wheel < b.wheel
		}
		return a.arch == "x86_64" && b.arch != "x86_64"
	})
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = fmt.Sprintf("cuda %s %s %s %s", strings.Join(r.releases, ","), r.arch, r.wheel, r.pkgs)
	}
	return out, nil
}

// replaceCudaLines puts lines in place of wheels.txt's cuda lines, where
// the first of them was, keeping every other line.
func replaceCudaLines(text string, lines []string) string {
	var out []string
	done := false
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.HasPrefix(l, "cuda ") {
			if !done {
				out = append(out, lines...)
				done = true
			}
			continue
		}
		out = append(out, l)
	}
	if !done {
		out = append(out, lines...)
	}
	return strings.Join(out, "\n") + "\n"
}
