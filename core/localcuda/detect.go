package localcuda

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Install is what Detect read from an installed toolkit. It is immutable
// once returned.
type Install struct {
	// Root is the folder given, absolute and cleaned (symbolic links are
	// kept: /usr/local/cuda stays /usr/local/cuda).
	Root string
	// Layout is the name of the table entry that matched: CUDAHome, Debian
	// or Redist.
	Layout string
	// Triple is the target triple the install uses ("" for Redist).
	Triple string
	// Platform is the NVIDIA platform key of the install's files
	// (linux-x86_64, linux-sbsa, linux-aarch64, linux-ppc64le).
	Platform string
	// CUDA is the toolkit release as the install states it: three parts
	// from version.json, major.minor from cuda.h's CUDA_VERSION. Zero only
	// for a Redist folder without the runtime's headers.
	CUDA version.Version
	// CUDAFrom is the file CUDA was read from.
	CUDAFrom string
	// Components maps manifest component names to the version the install
	// states for them. A component the install does not state is absent:
	// nothing is guessed.
	Components map[string]version.Version
	// From maps each component of Components to the file or folder that
	// stated its version, for messages.
	From map[string]string
	// layout is the table entry Find walks.
	layout Layout
	// archives maps a component to its unpacked folder (Redist only).
	archives map[string]string
}

// Hint is package knowledge the core does not have: where a layout without a
// version list states one component's version. Hints come from the
// component's owner (the toolkit's plugin, in its Describe answer), because the core
// names no package.
type Hint struct {
	// Component is the manifest name the version is recorded under.
	Component string
	// Rel is a path relative to the component's archive (a folder for
	// KindName, a file otherwise), resolved with Find, so one hint serves
	// every layout.
	Rel string
	// Kind is KindName, KindText, KindDefine or KindJSON.
	Kind string
	// Key is the file name prefix, the text before the version, the macro
	// name or the dotted JSON path.
	Key string
}

// Match is where Find found a path.
type Match struct {
	// Path is the file or folder in the install (symbolic links not
	// resolved: /usr/lib/x86_64-linux-gnu/libfoo.so.1 stays as named).
	Path string
	// Dir says Path is a folder.
	Dir bool
	// System: Path is a folder shared with software other than CUDA, such
	// as Debian's /usr/include; never export it whole as a component's.
	System bool
	// Merged: Path is a folder of a layout that keeps every component in
	// one tree, so it may hold other components' files; export the
	// component's own files from it rather than the whole folder.
	Merged bool
}

// Detect reads the install at root: which layout it has, its platform, the
// toolkit release and the component versions it states. Hints add versions
// the layout does not list itself; a version the layout lists wins over a
// hint's, and among hints for one component the first that states one wins.
func Detect(root string, hints ...Hint) (*Install, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("CUDA install %s: %w", root, err)
	}
	abs = filepath.Clean(abs)
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("CUDA install: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("CUDA install %s: not a folder: expected the toolkit's root (/usr/local/cuda, /usr, or a folder of unpacked *-archive folders)", abs)
	}
	var looked []string
	for _, l := range Layouts() {
		if !hasMarker(abs, l) {
			looked = append(looked, fmt.Sprintf("%s (%s)", strings.Join(l.Markers, " or "), l.Name))
			continue
		}
		in := &Install{Root: abs, Layout: l.Name, layout: l, Components: map[string]version.Version{}, From: map[string]string{}}
		if err := in.read(hints); err != nil {
			return nil, err
		}
		return in, nil
	}
	return nil, fmt.Errorf("CUDA install %s: no known layout: looked for %s", abs, strings.Join(looked, "; "))
}

// read fills the platform and the versions for a layout whose marker exists.
func (in *Install) read(hints []Hint) error {
	l := in.layout
	if l.TripleProbe != "" {
		t, err := in.triple()
		if err != nil {
			return err
		}
		in.Triple, in.Platform = t.Triple, t.Platform
	}
	for _, s := range l.Components {
		if err := in.readComponents(s); err != nil {
			return err
		}
	}
	if l.Name == Redist {
		if err := in.redistPlatform(); err != nil {
			return err
		}
	}
	var tried []string
	for _, s := range l.Release {
		v, file, err := in.readSource(s)
		if err != nil {
			return err
		}
		if file != "" {
			in.CUDA, in.CUDAFrom = v, file
			break
		}
		tried = append(tried, describe(s))
	}
	if in.CUDA.IsZero() && !l.ReleaseOptional {
		return fmt.Errorf("CUDA install %s (%s layout): no file states the CUDA release: looked for %s", in.Root, l.Name, strings.Join(tried, ", "))
	}
	for _, h := range hints {
		if _, ok := in.Components[h.Component]; ok {
			continue
		}
		v, file, err := in.readHint(h)
		if err != nil {
			return err
		}
		if file != "" {
			in.Components[h.Component] = v
			in.From[h.Component] = file
		}
	}
	return nil
}

// describe says what a source looks for, for messages.
func describe(s Source) string {
	switch s.Kind {
	case KindJSON:
		return fmt.Sprintf("%s key %q", s.Path, s.Key)
	case KindDefine:
		return fmt.Sprintf("%s #define %s", s.Path, s.Key)
	}
	return s.Path
}

// hasMarker reports whether any of the layout's markers exists.
func hasMarker(root string, l Layout) bool {
	for _, m := range l.Markers {
		for _, p := range expandTriples(m, l.Triples) {
			if len(glob(root, p)) > 0 {
				return true
			}
		}
	}
	return false
}

// expandTriples returns p with {triple} replaced by each triple, or p alone.
func expandTriples(p string, triples []Triple) []string {
	if !strings.Contains(p, TriplePlaceholder) {
		return []string{p}
	}
	var out []string
	for _, t := range triples {
		out = append(out, strings.ReplaceAll(p, TriplePlaceholder, t.Triple))
	}
	return out
}

// glob returns the root-relative paths matching p, whose elements may hold
// one '*' (the only wildcard, so Starlark can match it with startswith and
// endswith), in name order.
func glob(root, p string) []string {
	paths := []string{""}
	for _, elem := range strings.Split(p, "/") {
		var next []string
		for _, dir := range paths {
			if !strings.Contains(elem, "*") {
				q := path.Join(dir, elem)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(q))); err == nil {
					next = append(next, q)
				}
				continue
			}
			pre, suf, _ := strings.Cut(elem, "*")
			entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
			if err != nil {
				continue
			}
			for _, e := range entries {
				n := e.Name()
				if len(n) >= len(pre)+len(suf) && strings.HasPrefix(n, pre) && strings.HasSuffix(n, suf) {
					next = append(next, path.Join(dir, n))
				}
			}
		}
		paths = next
	}
	return paths
}

// triple finds the install's triple: the one whose probe exists, or, when
// several do, the one TripleLink leads into.
func (in *Install) triple() (Triple, error) {
	l := in.layout
	var found []Triple
	for _, t := range l.Triples {
		if len(glob(in.Root, strings.ReplaceAll(l.TripleProbe, TriplePlaceholder, t.Triple))) > 0 {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		var names []string
		for _, t := range l.Triples {
			names = append(names, t.Triple)
		}
		return Triple{}, fmt.Errorf("CUDA install %s (%s layout): no %s for any known triple (%s)", in.Root, l.Name, l.TripleProbe, strings.Join(names, ", "))
	}
	var names []string
	for _, t := range found {
		names = append(names, t.Triple)
	}
	if l.TripleLink != "" {
		if real, err := filepath.EvalSymlinks(filepath.Join(in.Root, l.TripleLink)); err == nil {
			for _, t := range found {
				probe := strings.ReplaceAll(l.TripleProbe, TriplePlaceholder, t.Triple)
				dir, err := filepath.EvalSymlinks(filepath.Join(in.Root, filepath.FromSlash(probe)))
				if err == nil && (real == dir || strings.HasPrefix(real, dir+string(filepath.Separator))) {
					return t, nil
				}
			}
		}
		return Triple{}, fmt.Errorf("CUDA install %s (%s layout): holds %s; %s does not lead into one of them, so which is the install's own cannot be told", in.Root, l.Name, strings.Join(names, ", "), filepath.Join(in.Root, l.TripleLink))
	}
	return Triple{}, fmt.Errorf("CUDA install %s (%s layout): holds %s, so which is the install's own cannot be told", in.Root, l.Name, strings.Join(names, ", "))
}

// redistPlatform takes the platform from the archive folders' names. One
// folder holds one platform: Find could not tell two platforms' archives of
// one component apart.
func (in *Install) redistPlatform() error {
	var plats []string
	for _, dir := range in.archives {
		_, p, _, _ := parseArchiveName(dir)
		if !slices.Contains(plats, p) {
			plats = append(plats, p)
		}
	}
	slices.Sort(plats)
	switch len(plats) {
	case 0:
		return fmt.Errorf("CUDA install %s (%s layout): no folder named <component>-<platform>-<version>-archive", in.Root, in.layout.Name)
	case 1:
		in.Platform = plats[0]
		return nil
	}
	return fmt.Errorf("CUDA install %s (%s layout): holds archives for %s: expected one platform per folder", in.Root, in.layout.Name, strings.Join(plats, " and "))
}

// readComponents reads one of the layout's component sources.
func (in *Install) readComponents(s Source) error {
	switch s.Kind {
	case KindJSONComponents:
		for _, rel := range glob(in.Root, s.Path) {
			file := in.abs(rel)
			var doc map[string]json.RawMessage
			if err := readJSON(file, &doc); err != nil {
				return err
			}
			for _, k := range slices.Sorted(maps.Keys(doc)) {
				if k == s.Key {
					continue
				}
				var entry struct {
					Version *string `json:"version"`
				}
				if json.Unmarshal(doc[k], &entry) != nil || entry.Version == nil {
					continue // not a component entry
				}
				// The key becomes a component matched against manifest
				// package names: "" or "a b" would be a component no
				// manifest can name.
				if err := manifest.CheckPackageName(k); err != nil {
					return fmt.Errorf("%s: key %q holds a version but is not a component name: %w", file, k, err)
				}
				v, err := version.Parse(*entry.Version)
				if err != nil {
					return fmt.Errorf("%s: key %q: %w", file, k+".version", err)
				}
				in.set(k, v, file)
			}
			return nil
		}
		return nil
	case KindArchiveNames:
		in.archives = map[string]string{}
		for _, rel := range glob(in.Root, s.Path) {
			if fi, err := os.Stat(in.abs(rel)); err != nil || !fi.IsDir() {
				continue
			}
			name := path.Base(rel)
			comp, _, v, err := parseArchiveName(name)
			if err != nil {
				return fmt.Errorf("%s: %w", in.abs(rel), err)
			}
			if err := manifest.CheckPackageName(comp); err != nil {
				return fmt.Errorf("%s: %q is not a component name: %w", in.abs(rel), comp, err)
			}
			if prev, ok := in.archives[comp]; ok {
				return fmt.Errorf("CUDA install %s: %s and %s are both %s: expected one archive per component", in.Root, prev, name, comp)
			}
			in.archives[comp] = name
			in.set(comp, v, in.abs(rel))
		}
		return nil
	}
	return fmt.Errorf("layout %s: component source kind %q: expected %q or %q", in.layout.Name, s.Kind, KindJSONComponents, KindArchiveNames)
}

func (in *Install) set(comp string, v version.Version, from string) {
	if _, ok := in.Components[comp]; ok {
		return
	}
	in.Components[comp] = v
	in.From[comp] = from
}

func (in *Install) abs(rel string) string { return filepath.Join(in.Root, filepath.FromSlash(rel)) }

// parseArchiveName reads <component>-<platform>-<version>[_<variant>]-archive.
// The platform key is found by name, because it holds a '-' itself.
func parseArchiveName(name string) (comp, platform string, v version.Version, err error) {
	rest, ok := strings.CutSuffix(name, "-archive")
	if ok {
		for _, p := range manifest.PlatformKeys() {
			c, ver, found := strings.Cut(rest, "-"+p+"-")
			if !found || c == "" {
				continue
			}
			// A cuda_variant archive appends _cuda<N> to the version.
			ver, _, _ = strings.Cut(ver, "_")
			if v, err := version.Parse(ver); err == nil {
				return c, p, v, nil
			}
		}
	}
	return "", "", version.Version{}, fmt.Errorf("folder name %q: expected <component>-<platform>-<version>-archive, as NVIDIA's archives unpack, with a platform such as %s", name, manifest.LinuxX86_64)
}

// readSource reads one release source; file is "" when the source states
// nothing (its file is absent).
func (in *Install) readSource(s Source) (version.Version, string, error) {
	p := s.Path
	if in.Triple != "" {
		p = strings.ReplaceAll(p, TriplePlaceholder, in.Triple)
	}
	for _, rel := range glob(in.Root, p) {
		v, ok, err := readVersion(in.abs(rel), s.Kind, s.Key)
		if err != nil {
			return version.Version{}, "", err
		}
		if ok {
			return v, in.abs(rel), nil
		}
	}
	return version.Version{}, "", nil
}

// readHint reads a hint through Find; file is "" when the install does not
// state the version there.
func (in *Install) readHint(h Hint) (version.Version, string, error) {
	m, ok := in.Find(h.Component, h.Rel)
	if !ok {
		return version.Version{}, "", nil
	}
	v, ok, err := readVersion(m.Path, h.Kind, h.Key)
	if err != nil || !ok {
		return version.Version{}, "", err
	}
	return v, m.Path, nil
}

// readVersion reads a version from a file or folder by kind. ok is false
// when the file does not state one (the key is absent); a key that is there
// but does not hold a version is an error naming the file.
func readVersion(file, kind, key string) (version.Version, bool, error) {
	switch kind {
	case KindJSON:
		var doc any
		if err := readJSON(file, &doc); err != nil {
			return version.Version{}, false, err
		}
		for _, k := range strings.Split(key, ".") {
			obj, isObj := doc.(map[string]any)
			if !isObj {
				return version.Version{}, false, nil
			}
			if doc, isObj = obj[k]; !isObj {
				return version.Version{}, false, nil
			}
		}
		s, isStr := doc.(string)
		if !isStr {
			return version.Version{}, false, fmt.Errorf("%s: key %q: expected a version string", file, key)
		}
		v, err := version.Parse(s)
		if err != nil {
			return version.Version{}, false, fmt.Errorf("%s: key %q: %w", file, key, err)
		}
		return v, true, nil
	case KindDefine:
		return readDefine(file, key)
	case KindName:
		return readName(file, key)
	case KindText:
		data, err := readLocal(file)
		if err != nil {
			return version.Version{}, false, fmt.Errorf("reading version: %w", err)
		}
		for rest := data; ; {
			i := bytes.Index(rest, []byte(key))
			if i < 0 {
				return version.Version{}, false, nil
			}
			rest = rest[i+len(key):]
			n := 0
			for n < len(rest) && (rest[n] == '.' || rest[n] >= '0' && rest[n] <= '9') {
				n++
			}
			if v, err := version.Parse(strings.TrimRight(string(rest[:n]), ".")); err == nil {
				return v, true, nil
			}
		}
	}
	return version.Version{}, false, fmt.Errorf("%s: version source kind %q: expected one of %s", file, kind, strings.Join([]string{KindJSON, KindDefine, KindName, KindText}, ", "))
}

// readLocal reads a file of the install: a regular file (or a symbolic link
// to one) within inputfile.Local's limit, so that a named pipe or a device
// in the tree cannot hang or flood the run.
func readLocal(file string) ([]byte, error) {
	return inputfile.Read(context.Background(), file, inputfile.Local)
}

func readJSON(file string, into any) error {
	data, err := readLocal(file)
	if err != nil {
		return fmt.Errorf("reading version list: %w", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// readDefine reads "#define NAME 11080" as 11.8: CUDA encodes its release
// as major*1000 + minor*10 in CUDA_VERSION and the runtime's own macros.
func readDefine(file, name string) (version.Version, bool, error) {
	data, err := readLocal(file)
	if err != nil {
		return version.Version{}, false, fmt.Errorf("reading version: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[0] != "#define" || fields[1] != name {
			continue
		}
		n, err := strconv.Atoi(fields[2])
		if err != nil || n < 1000 {
			return version.Version{}, false, fmt.Errorf("%s:%d: #define %s %s: expected an integer such as 12040 (major*1000 + minor*10)", file, line, name, fields[2])
		}
		return version.New(n/1000, n%1000/10), true, nil
	}
	if err := sc.Err(); err != nil {
		return version.Version{}, false, fmt.Errorf("reading %s: %w", file, err)
	}
	return version.Version{}, false, nil
}

// readName reads the version from a file name in dir: prefix followed by a
// version of three parts or more. Two different such versions state nothing
// certain, so neither is taken.
func readName(dir, prefix string) (version.Version, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return version.Version{}, false, nil
		}
		return version.Version{}, false, fmt.Errorf("reading versions from file names: %w", err)
	}
	var found version.Version
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		v, err := version.Parse(rest)
		if err != nil || v.Parts() < 3 {
			continue
		}
		if !found.IsZero() && !found.Equal(v) {
			return version.Version{}, false, nil
		}
		found = v
	}
	return found, !found.IsZero(), nil
}

// Find maps rel, a path relative to the redist archive of component (as in
// the fixup plugins' file lists: "bin/tool", "include", "lib/libfoo.so.1"),
// to the file or folder in the install. It uses the table entry with the
// longest prefix of rel and returns the first candidate that exists. ok is
// false when none does, when rel is not a clean relative path, or, in the
// redist layout, when the component has no archive folder.
func (in *Install) Find(component, rel string) (Match, bool) {
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return Match{}, false
	}
	d, ok := longestPrefix(in.layout.Dirs, rel)
	if !ok {
		return Match{}, false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(rel, d.Prefix), "/")
	for _, c := range d.Candidates {
		base := strings.ReplaceAll(c.Path, TriplePlaceholder, in.Triple)
		if strings.Contains(base, ArchivePlaceholder) {
			dir, ok := in.archives[component]
			if !ok {
				return Match{}, false
			}
			base = strings.ReplaceAll(base, ArchivePlaceholder, dir)
		}
		p := in.abs(path.Join(base, rest))
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		return Match{
			Path:   p,
			Dir:    fi.IsDir(),
			System: c.System && rest == "",
			Merged: in.layout.Merged && fi.IsDir(),
		}, true
	}
	return Match{}, false
}

// longestPrefix returns the entry whose prefix is rel or a folder above it,
// the longest such.
func longestPrefix(dirs []Dir, rel string) (Dir, bool) {
	best, found := Dir{}, false
	for _, d := range dirs {
		if d.Prefix != "" && rel != d.Prefix && !strings.HasPrefix(rel, d.Prefix+"/") {
			continue
		}
		if !found || len(d.Prefix) > len(best.Prefix) {
			best, found = d, true
		}
	}
	return best, found
}
