package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Written is the origin every file or link the lock writes itself must carry:
// it is not one of NVIDIA's files.
const Written = "written, not NVIDIA's"

// Lock is integration/realbin/lock.json: the artifacts (NVIDIA wheels from
// PyPI, Debian .debs), pinned by sha256, and the archives made from them.
type Lock struct {
	Comment []string `json:"comment,omitempty"`
	// Drop are patterns of artifact paths never put in an archive: a
	// pattern without "/" is matched (path.Match) against every component
	// of the path, one with "/" against the whole path, or as a prefix when
	// it ends in "/". A source's map entry naming one file exactly takes it
	// all the same (a wheel's license in its .dist-info).
	Drop      []string   `json:"drop"`
	Artifacts []Artifact `json:"artifacts"`
	Archives  []Archive  `json:"archives"`
	// Wheels are slim wheels served from a PEP 691 index (wheel.go).
	Wheels []SlimWheel `json:"wheels,omitempty"`
	// Host are files of the machine outside every package set (the
	// driver's libcuda.so.1), put beside the programs (host.go).
	Host []HostFile `json:"host,omitempty"`
	// IndexEmpty are projects the index has a page with no files for:
	// cudapkgs asks for every CUDA major's project of a product, and a 404
	// is an error, while no files is a product without that variant.
	IndexEmpty []string `json:"index_empty,omitempty"`
}

// Artifact is one downloaded file.
type Artifact struct {
	// ID names the artifact in Archive.Sources: NAME==VERSION:ARCH.
	ID      string `json:"id"`
	Kind    string `json:"kind"` // "wheel" or "deb"
	Name    string `json:"name"`
	Version string `json:"version"`
	// Arch is the wheel's (x86_64, aarch64) or the deb's (amd64, arm64).
	Arch   string `json:"arch"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size,omitempty"`
	// Holds is the package version a wheel holds when its own version
	// leaves out NVIDIA's build number (nvidia-cusparselt-cu12 0.8.1 is
	// libcusparse_lt 0.8.1.1): Version followed by more parts.
	Holds string `json:"holds,omitempty"`
	// Why says where Holds comes from (the header's build number).
	Why string `json:"why,omitempty"`
}

// Archive is one redistributable archive to produce, in NVIDIA's layout.
type Archive struct {
	// Set is the group -set selects it by.
	Set     string `json:"set"`
	Product string `json:"product"`
	Release string `json:"release"`
	Package string `json:"package"`
	// Platform is NVIDIA's key (linux-x86_64, linux-sbsa).
	Platform string `json:"platform"`
	// Variant is the cuda_variant key ("cuda13") for products that have one.
	Variant string `json:"variant,omitempty"`
	// Version must be the real manifest's version of the package.
	Version string   `json:"version"`
	Sources []Source `json:"sources"`
	// Written are files and links that are not NVIDIA's.
	Written []WrittenFile `json:"written,omitempty"`
	Note    string        `json:"note,omitempty"`
}

// Source takes files of one artifact into the archive.
type Source struct {
	Artifact string `json:"artifact"`
	// Map moves artifact paths to archive paths (below the archive's top
	// folder). A "from" ending in "/" is a prefix ("to" then ends in "/" or
	// is ""), otherwise one file. The longest matching "from" wins.
	Map []Move `json:"map"`
	// Drop are patterns (as Lock.Drop) of this artifact's files left out.
	Drop []string `json:"drop,omitempty"`
	// Rest is what happens to a file no map entry or drop pattern matches:
	// "error" (the default: the lock must say where every file goes) or
	// "drop" (take only what the map names, as from a Debian package).
	Rest string `json:"rest,omitempty"`
}

// Move is one entry of a path map.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// WrittenFile is a file (Content) or a symbolic link (Link) the tool writes.
type WrittenFile struct {
	Path    string `json:"path"`
	Link    string `json:"link,omitempty"`
	Content string `json:"content,omitempty"`
	// Executable gives the file mode 0755 (else 0644).
	Executable bool   `json:"executable,omitempty"`
	Origin     string `json:"origin"`
	Why        string `json:"why,omitempty"`
}

var (
	hexRE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	setRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	variant = regexp.MustCompile(`^cuda[0-9]+$`)
)

// LoadLock reads and checks a lock file.
func LoadLock(file string) (*Lock, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var l Lock
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &l, nil
}

// Check validates the lock on its own (without the manifests).
func (l *Lock) Check() error {
	ids := map[string]*Artifact{}
	files := map[string]bool{}
	for i := range l.Artifacts {
		a := &l.Artifacts[i]
		if want := a.Name + "==" + a.Version + ":" + a.Arch; a.ID != want {
			return fmt.Errorf("artifact %q: id must be %q", a.ID, want)
		}
		if ids[a.ID] != nil {
			return fmt.Errorf("artifact %s listed twice", a.ID)
		}
		ids[a.ID] = a
		switch a.Kind {
		case "wheel":
			if !strings.HasSuffix(a.File, ".whl") || a.Arch != "x86_64" && a.Arch != "aarch64" {
				return fmt.Errorf("artifact %s: a wheel needs a .whl file and arch x86_64 or aarch64", a.ID)
			}
		case "deb":
			if !strings.HasSuffix(a.File, ".deb") || a.Arch != "amd64" && a.Arch != "arm64" {
				return fmt.Errorf("artifact %s: a deb needs a .deb file and arch amd64 or arm64", a.ID)
			}
		default:
			return fmt.Errorf("artifact %s: kind %q: expected wheel or deb", a.ID, a.Kind)
		}
		if a.Holds != "" && (a.Kind != "wheel" || !strings.HasPrefix(a.Holds, a.Version+".") || a.Why == "") {
			return fmt.Errorf("artifact %s: holds %q must be a wheel's version followed by more parts, with why", a.ID, a.Holds)
		}
		if !hexRE.MatchString(a.SHA256) {
			return fmt.Errorf("artifact %s: sha256 %q is not 64 lowercase hex digits", a.ID, a.SHA256)
		}
		if a.File == "" || strings.ContainsAny(a.File, "/\\") || a.File[0] == '.' || files[a.File] {
			return fmt.Errorf("artifact %s: bad or repeated file name %q", a.ID, a.File)
		}
		files[a.File] = true
	}
	names := map[string]bool{}
	for i := range l.Archives {
		ar := &l.Archives[i]
		where := ar.Product + " " + ar.Release + " " + ar.Package + " " + ar.Platform + " " + ar.Variant
		if !setRE.MatchString(ar.Set) {
			return fmt.Errorf("archive %s: bad set %q", where, ar.Set)
		}
		if ar.Variant != "" && !variant.MatchString(ar.Variant) {
			return fmt.Errorf("archive %s: variant %q: expected cudaN", where, ar.Variant)
		}
		if ar.Platform != "linux-x86_64" && ar.Platform != "linux-sbsa" {
			return fmt.Errorf("archive %s: platform %q: expected linux-x86_64 or linux-sbsa", where, ar.Platform)
		}
		if names[ar.RelativePath()] {
			return fmt.Errorf("archive %s listed twice", ar.RelativePath())
		}
		names[ar.RelativePath()] = true
		if len(ar.Sources) == 0 {
			return fmt.Errorf("archive %s: no sources", where)
		}
		for _, s := range ar.Sources {
			a := ids[s.Artifact]
			if a == nil {
				return fmt.Errorf("archive %s: unknown artifact %q", where, s.Artifact)
			}
			if want := archOf(ar.Platform, a.Kind); a.Arch != want {
				return fmt.Errorf("archive %s: artifact %s is %s, the platform needs %s", where, a.ID, a.Arch, want)
			}
			if !versionMatches(a, ar.Version) {
				return fmt.Errorf("archive %s version %s: artifact %s is another version", where, ar.Version, a.ID)
			}
			if s.Rest != "" && s.Rest != "error" && s.Rest != "drop" {
				return fmt.Errorf("archive %s: source %s: rest %q: expected error or drop", where, a.ID, s.Rest)
			}
			for _, m := range s.Map {
				if m.From == "" || strings.HasSuffix(m.From, "/") != (m.To == "" || strings.HasSuffix(m.To, "/")) {
					return fmt.Errorf("archive %s: source %s: map %q -> %q: a prefix (ending in /) maps to a prefix", where, a.ID, m.From, m.To)
				}
				if !cleanRel(strings.TrimSuffix(m.To, "/")) && m.To != "" {
					return fmt.Errorf("archive %s: source %s: map to %q is not a clean relative path", where, a.ID, m.To)
				}
			}
		}
		for _, w := range ar.Written {
			if w.Origin != Written {
				return fmt.Errorf("archive %s: written %s: origin must be %q", where, w.Path, Written)
			}
			if !cleanRel(w.Path) || (w.Link == "") == (w.Content == "") {
				return fmt.Errorf("archive %s: written %s: needs a clean path and either link or content", where, w.Path)
			}
		}
	}
	if err := l.checkWheels(ids); err != nil {
		return err
	}
	return l.checkHost(ids)
}

func cleanRel(p string) bool {
	return p != "" && path.Clean(p) == p && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
}

// archOf is the artifact arch an NVIDIA platform needs.
func archOf(platform, kind string) string {
	x86 := platform == "linux-x86_64"
	switch {
	case kind == "deb" && x86:
		return "amd64"
	case kind == "deb":
		return "arm64"
	case x86:
		return "x86_64"
	}
	return "aarch64"
}

// versionMatches says whether an artifact is the package version: a wheel of
// the same version (or a .postN rebuild, or the release of a four-part version
// ending in .0 as cuTENSOR's, or one whose holds says it), a deb whose
// upstream version is it (12.4.131~12.4.1-8.2+b1 is 12.4.131).
func versionMatches(a *Artifact, v string) bool {
	if a.Holds != "" {
		return a.Holds == v
	}
	av := a.Version
	if a.Kind == "deb" {
		if i := strings.IndexByte(av, ':'); i >= 0 {
			av = av[i+1:]
		}
		if i := strings.IndexAny(av, "~-+"); i >= 0 {
			av = av[:i]
		}
		return av == v
	}
	if i := strings.Index(av, ".post"); i >= 0 {
		av = av[:i]
	}
	return av == v || av+".0" == v
}

// Top is the archive's top folder, as NVIDIA names it.
func (ar *Archive) Top() string {
	v := ar.Version
	if ar.Variant != "" {
		v += "_" + ar.Variant
	}
	return ar.Package + "-" + ar.Platform + "-" + v + "-archive"
}

// RelativePath is the manifest's relative_path.
func (ar *Archive) RelativePath() string {
	return ar.Package + "/" + ar.Platform + "/" + ar.Top() + ".tar.xz"
}

// Sets returns the set names in the lock, sorted.
func (l *Lock) Sets() []string {
	var out []string
	for _, a := range l.Archives {
		if !slices.Contains(out, a.Set) {
			out = append(out, a.Set)
		}
	}
	for _, w := range l.Wheels {
		if !slices.Contains(out, w.Set) {
			out = append(out, w.Set)
		}
	}
	for _, h := range l.Host {
		if !slices.Contains(out, h.Set) {
			out = append(out, h.Set)
		}
	}
	sort.Strings(out)
	return out
}

// Artifact returns the artifact with the id.
func (l *Lock) Artifact(id string) *Artifact {
	for i := range l.Artifacts {
		if l.Artifacts[i].ID == id {
			return &l.Artifacts[i]
		}
	}
	return nil
}

// cacheKey hashes what an archive's bytes depend on: its spec, the drop
// patterns, its artifacts' sha256s and the packing format.
func (l *Lock) cacheKey(ar *Archive) string {
	h := sha256.New()
	spec, _ := json.Marshal(ar)
	drop, _ := json.Marshal(l.Drop)
	fmt.Fprintf(h, "realbin-format %d\nxz %s\n%s\n%s\n", formatVersion, strings.Join(xzArgs, " "), spec, drop)
	for _, s := range ar.Sources {
		fmt.Fprintf(h, "%s %s\n", s.Artifact, l.Artifact(s.Artifact).SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// shortSum is a cache key: the first 32 hex digits of data's sha256.
func shortSum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])[:32]
}

// matchDrop says whether p matches one of the drop patterns.
func matchDrop(patterns []string, p string) bool {
	for _, pat := range patterns {
		if !strings.Contains(pat, "/") {
			for _, c := range strings.Split(p, "/") {
				if ok, _ := path.Match(pat, c); ok {
					return true
				}
			}
			continue
		}
		if strings.HasSuffix(pat, "/") {
			if strings.HasPrefix(p+"/", pat) {
				return true
			}
			continue
		}
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
	}
	return false
}

// mapPath returns where the source puts an artifact path: ok false means it
// is dropped; an error means the lock does not say.
func (l *Lock) mapPath(s *Source, p string) (string, bool, error) {
	exact := slices.ContainsFunc(s.Map, func(m Move) bool { return m.From == p })
	if matchDrop(l.Drop, p) && !exact || matchDrop(s.Drop, p) {
		return "", false, nil
	}
	best := -1
	for i, m := range s.Map {
		if m.From == p || strings.HasSuffix(m.From, "/") && strings.HasPrefix(p, m.From) {
			if best < 0 || len(m.From) > len(s.Map[best].From) {
				best = i
			}
		}
	}
	if best >= 0 {
		m := s.Map[best]
		if !strings.HasSuffix(m.From, "/") {
			return m.To, true, nil
		}
		return m.To + strings.TrimPrefix(p, m.From), true, nil
	}
	if s.Rest == "drop" {
		return "", false, nil
	}
	return "", false, fmt.Errorf("%s: %s: the lock's map says nothing about it (map it, drop it, or set rest to drop)", s.Artifact, p)
}
