package localcuda

import (
	"strconv"
	"strings"
)

// Layout names.
const (
	CUDAHome = "cuda-home"
	Debian   = "debian"
	Redist   = "redist"
)

// Placeholders in the table's paths.
const (
	// TriplePlaceholder stands for the install's target triple
	// (x86_64-linux in targets/x86_64-linux, x86_64-linux-gnu in
	// lib/x86_64-linux-gnu).
	TriplePlaceholder = "{triple}"
	// ArchivePlaceholder stands for the unpacked archive folder of the
	// component asked for (redist layout only).
	ArchivePlaceholder = "{archive}"
)

// Source kinds: every way an install states a version. Each is a plain read
// of a file or a folder listing, so a Starlark repository rule can do it too.
const (
	// KindJSON: the string at the dotted Key path of the JSON file
	// ("cuda.version" in {"cuda": {"version": "12.4.1"}}).
	KindJSON = "json"
	// KindJSONComponents: every top-level key of the JSON file whose value
	// is an object with a "version" string is a component, except Key (the
	// toolkit's own entry). NVIDIA's version.json uses manifest names.
	KindJSONComponents = "json-components"
	// KindDefine: a "#define Key <integer>" line whose integer encodes
	// major*1000 + minor*10, as CUDA_VERSION does (11080 is 11.8).
	KindDefine = "define"
	// KindArchiveNames: every folder matching Path is named
	// <component>-<platform>-<version>[_<variant>]-archive.
	KindArchiveNames = "archive-names"
	// KindName: a file in the folder whose name is Key followed by a
	// version of three parts or more ("libfoo.so." + "1.2.3"). Two-part
	// suffixes are left alone: "libfoo.so.1.2" is an ABI number (a SONAME),
	// not the component's version.
	KindName = "name"
	// KindText: the version that follows the first occurrence of Key in the
	// file that is followed by a version at all (binaries carry their
	// version string).
	KindText = "text"
)

// Layout is one way a toolkit can be laid out on disk.
type Layout struct {
	// Name is CUDAHome, Debian or Redist.
	Name string
	// Markers are paths relative to the root; the layout applies when any
	// of them exists. {triple} is tried with every one of Triples, and an
	// element may hold one '*'.
	Markers []string
	// Triples maps the triples the layout uses to NVIDIA platform keys, in
	// the order they are tried.
	Triples []Triple
	// TripleProbe is a path relative to the root with {triple}: a triple is
	// the install's when its probe exists. Empty: the layout has no triple
	// (the redist layout reads its platform from archive names).
	TripleProbe string
	// TripleLink breaks a tie when several triples' probes exist (a host
	// install with a cross target added): the triple whose probe folder
	// this path's real path lies in is the install's own.
	TripleLink string
	// Merged says one tree holds every component, so a folder of the table
	// holds other components' files too and must not be exported whole as
	// one component's.
	Merged bool
	// Dirs maps the first element(s) of a path relative to a redist archive
	// to candidate folders of the install. Find uses the longest Prefix that
	// matches; Prefix "" matches every path.
	Dirs []Dir
	// Release lists where the install states the toolkit release, in the
	// order they are read; the first that states one wins.
	Release []Source
	// ReleaseOptional: the layout may have no file stating the release (an
	// unpacked folder without the runtime's headers); Detect then leaves
	// Install.CUDA zero rather than failing.
	ReleaseOptional bool
	// Components lists where the install states component versions.
	Components []Source
}

// Triple is a target triple as a layout spells it and the NVIDIA platform
// key it stands for.
type Triple struct {
	Triple   string
	Platform string
}

// Dir maps one redist path prefix to the install's folders.
type Dir struct {
	// Prefix is "bin", "nvvm/bin", ... or "" for every path.
	Prefix string
	// Candidates are searched in order; the first holding the path wins.
	Candidates []Candidate
}

// Candidate is one folder, relative to the root, that may hold a prefix's
// files. Path may hold {triple} and {archive}.
type Candidate struct {
	Path string
	// System: the folder is shared with software other than CUDA
	// (Debian's /usr/include, /usr/bin), so it is never a component's own.
	System bool
}

// Source is one place a layout states a version. Path is relative to the
// root and may hold {triple} and one '*' per element.
type Source struct {
	Kind string
	Path string
	Key  string
}

// Layouts returns the table of known layouts in the order Detect tries them.
// A fresh copy is returned on every call, so callers may keep or change it.
func Layouts() []Layout {
	return []Layout{
		{
			Name:    CUDAHome,
			Markers: []string{"targets/{triple}/include", "version.json"},
			Triples: []Triple{
				{"x86_64-linux", "linux-x86_64"},
				{"sbsa-linux", "linux-sbsa"},
				{"aarch64-linux", "linux-aarch64"},
				{"ppc64le-linux", "linux-ppc64le"},
			},
			TripleProbe: "targets/{triple}",
			// lib64 -> targets/<host triple>/lib; a cross target added
			// later gets only its targets/ folder.
			TripleLink: "lib64",
			Merged:     true,
			Dirs: []Dir{
				{"", []Candidate{{Path: ""}}},
				{"include", []Candidate{{Path: "include"}, {Path: "targets/{triple}/include"}}},
				// Archives say lib; the install says lib64, which is
				// targets/<triple>/lib by another name, but is sometimes a
				// real folder of its own (older .run installs).
				{"lib", []Candidate{{Path: "lib64"}, {Path: "targets/{triple}/lib"}}},
				{"lib64", []Candidate{{Path: "lib64"}, {Path: "targets/{triple}/lib"}}},
			},
			Release: []Source{
				{KindJSON, "version.json", "cuda.version"},
				{KindDefine, "include/cuda.h", "CUDA_VERSION"},
				{KindDefine, "targets/{triple}/include/cuda.h", "CUDA_VERSION"},
			},
			Components: []Source{
				{KindJSONComponents, "version.json", "cuda"},
			},
		},
		{
			Name: Debian,
			// The toolkit package's private folder, or the runtime's
			// library for an install of the libraries alone.
			Markers: []string{"lib/nvidia-cuda-toolkit/bin", "lib/{triple}/libcudart.so*"},
			// Debian's arm64 packages repackage NVIDIA's server ARM
			// (sbsa) archives, not Jetson's.
			Triples: []Triple{
				{"x86_64-linux-gnu", "linux-x86_64"},
				{"aarch64-linux-gnu", "linux-sbsa"},
				{"powerpc64le-linux-gnu", "linux-ppc64le"},
			},
			TripleProbe: "lib/{triple}/libcudart.so*",
			Merged:      true,
			Dirs: []Dir{
				// The real nvcc (not /usr/bin's wrapper script), its
				// nvcc.profile and crt, and cicc are in the private folder;
				// every other tool is in /usr/bin.
				{"bin", []Candidate{{Path: "lib/nvidia-cuda-toolkit/bin"}, {Path: "bin", System: true}}},
				{"nvvm/bin", []Candidate{{Path: "lib/nvidia-cuda-toolkit/bin"}}},
				{"nvvm/libdevice", []Candidate{{Path: "lib/nvidia-cuda-toolkit/libdevice"}}},
				{"nvvm/include", []Candidate{{Path: "include", System: true}}},
				{"nvvm/lib64", []Candidate{{Path: "lib/{triple}", System: true}}},
				{"include", []Candidate{{Path: "include", System: true}}},
				{"lib", []Candidate{{Path: "lib/{triple}", System: true}}},
				{"lib64", []Candidate{{Path: "lib/{triple}", System: true}}},
				{"extras/CUPTI/include", []Candidate{{Path: "include", System: true}}},
				{"extras/CUPTI/lib64", []Candidate{{Path: "lib/{triple}", System: true}}},
				{"compute-sanitizer", []Candidate{{Path: "lib/nvidia-cuda-toolkit/compute-sanitizer"}}},
			},
			Release: []Source{
				{KindDefine, "include/cuda.h", "CUDA_VERSION"},
			},
		},
		{
			Name:    Redist,
			Markers: []string{"*-archive"},
			Dirs: []Dir{
				{"", []Candidate{{Path: ArchivePlaceholder}}},
			},
			Release: []Source{
				{KindDefine, "*-archive/include/cuda.h", "CUDA_VERSION"},
			},
			ReleaseOptional: true,
			Components: []Source{
				{KindArchiveNames, "*-archive", ""},
			},
		},
	}
}

// Starlark renders layouts as a Starlark dict literal keyed by layout name,
// in order (Starlark dicts keep insertion order), for a repository rule to
// run the same search:
//
//	{"cuda-home": {"markers": [...], "triples": [["x86_64-linux", "linux-x86_64"], ...],
//	  "triple_probe": "...", "triple_link": "...", "merged": True,
//	  "dirs": [{"prefix": "include", "candidates": [{"path": "include", "system": False}]}],
//	  "release": [{"kind": "json", "path": "version.json", "key": "cuda.version"}],
//	  "release_optional": False, "components": [...]}, ...}
func Starlark(layouts []Layout) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, l := range layouts {
		b.WriteString("    " + strconv.Quote(l.Name) + ": {\n")
		field := func(name, value string) {
			b.WriteString("        " + strconv.Quote(name) + ": " + value + ",\n")
		}
		field("markers", strList(l.Markers))
		var triples []string
		for _, t := range l.Triples {
			triples = append(triples, "["+strconv.Quote(t.Triple)+", "+strconv.Quote(t.Platform)+"]")
		}
		field("triples", "["+strings.Join(triples, ", ")+"]")
		field("triple_probe", strconv.Quote(l.TripleProbe))
		field("triple_link", strconv.Quote(l.TripleLink))
		field("merged", starBool(l.Merged))
		b.WriteString("        \"dirs\": [\n")
		for _, d := range l.Dirs {
			var cands []string
			for _, c := range d.Candidates {
				cands = append(cands, "{\"path\": "+strconv.Quote(c.Path)+", \"system\": "+starBool(c.System)+"}")
			}
			b.WriteString("            {\"prefix\": " + strconv.Quote(d.Prefix) + ", \"candidates\": [" + strings.Join(cands, ", ") + "]},\n")
		}
		b.WriteString("        ],\n")
		field("release", sourceList(l.Release))
		field("release_optional", starBool(l.ReleaseOptional))
		field("components", sourceList(l.Components))
		b.WriteString("    },\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// strList renders a list of strings. strconv.Quote's escapes are a subset of
// Starlark's for the ASCII text the table holds.
func strList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func sourceList(ss []Source) string {
	var out []string
	for _, s := range ss {
		out = append(out, "{\"kind\": "+strconv.Quote(s.Kind)+", \"path\": "+strconv.Quote(s.Path)+", \"key\": "+strconv.Quote(s.Key)+"}")
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func starBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}
