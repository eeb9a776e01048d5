package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/pyindex"
)

// SlimWheel is a wheel served from a PEP 691 index on 127.0.0.1, for the
// products cudapkgs reads from wheels (NCCL, NVSHMEM): one of NVIDIA's, with
// only the files the programs need, each at its own path in the wheel (the
// prefix, nvidia/nccl/, is what the manifest's strip_prefix names). The file
// keeps NVIDIA's name: its tags say the platform.
type SlimWheel struct {
	Set      string `json:"set"`
	Artifact string `json:"artifact"`
	// Keep are the wheel's paths kept: one file, or a prefix ending in "/".
	Keep []string `json:"keep"`
	Why  string   `json:"why,omitempty"`
}

// slimFormat changes the cache key when the way slim wheels are written does.
const slimFormat = "slimwheel-1"

func (l *Lock) checkWheels(ids map[string]*Artifact) error {
	seen := map[string]bool{}
	for _, w := range l.Wheels {
		a := ids[w.Artifact]
		switch {
		case a == nil:
			return fmt.Errorf("wheel %q: unknown artifact", w.Artifact)
		case a.Kind != "wheel":
			return fmt.Errorf("wheel %s: the artifact is a %s, expected a wheel", w.Artifact, a.Kind)
		case !setRE.MatchString(w.Set):
			return fmt.Errorf("wheel %s: bad set %q", w.Artifact, w.Set)
		case len(w.Keep) == 0:
			return fmt.Errorf("wheel %s: keep is empty: expected the wheel paths the programs need", w.Artifact)
		case seen[w.Artifact]:
			return fmt.Errorf("wheel %s listed twice", w.Artifact)
		}
		seen[w.Artifact] = true
		for _, k := range w.Keep {
			if !cleanRel(strings.TrimSuffix(k, "/")) {
				return fmt.Errorf("wheel %s: keep %q is not a clean relative path", w.Artifact, k)
			}
		}
	}
	for _, p := range l.IndexEmpty {
		if p != pyindex.Normalize(p) {
			return fmt.Errorf("index_empty %q: expected a normalized project name (%s)", p, pyindex.Normalize(p))
		}
	}
	return nil
}

func (w *SlimWheel) keeps(name string) bool {
	for _, k := range w.Keep {
		if name == k || strings.HasSuffix(k, "/") && strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

// Slim returns the slim wheel from <cache>/repacked/<key>/, making it when
// it is not there. Entries are copied compressed as they are (zip.Writer.Copy),
// in the wheel's order, so the bytes depend only on the pinned wheel and Keep.
func Slim(w *SlimWheel, a *Artifact, f *Fetcher) (*Packed, error) {
	key, _ := json.Marshal(struct {
		W      *SlimWheel
		SHA256 string
		Format string
	}{w, a.SHA256, slimFormat})
	dir := filepath.Join(f.Cache, "repacked", shortSum(key))
	file := filepath.Join(dir, a.File)
	sums := filepath.Join(dir, "sums.json")
	if data, err := os.ReadFile(sums); err == nil {
		var p Packed
		if json.Unmarshal(data, &p) == nil {
			if fi, err := os.Stat(file); err == nil && fi.Size() == p.Size {
				p.File = file
				return &p, nil
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp := file + ".tmp"
	n, err := writeSlim(w, a, f.Path(a), tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("slim wheel %s: %w", a.ID, err)
	}
	p, err := sumFile(tmp)
	if err != nil {
		return nil, err
	}
	p.Files = n
	if err := os.Rename(tmp, file); err != nil {
		return nil, err
	}
	data, _ := json.MarshalIndent(p, "", "  ")
	if err := os.WriteFile(sums, data, 0o644); err != nil {
		return nil, err
	}
	p.File, p.Repacked = file, true
	return p, nil
}

func writeSlim(w *SlimWheel, a *Artifact, src, out string) (int, error) {
	z, err := zip.OpenReader(src)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	want := elf.EM_X86_64
	if a.Arch == "aarch64" {
		want = elf.EM_AARCH64
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer o.Close()
	zw := zip.NewWriter(o)
	used := map[string]bool{}
	n := 0
	for _, zf := range z.File {
		name := zf.Name
		if strings.HasSuffix(name, "/") || !w.keeps(name) {
			continue
		}
		for _, k := range w.Keep {
			if name == k || strings.HasSuffix(k, "/") && strings.HasPrefix(name, k) {
				used[k] = true
			}
		}
		if err := checkZipELF(zf, want); err != nil {
			return 0, err
		}
		if err := zw.Copy(zf); err != nil {
			return 0, err
		}
		n++
	}
	for _, k := range w.Keep {
		if !used[k] {
			return 0, fmt.Errorf("keep %q matches nothing in %s", k, a.File)
		}
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return n, o.Close()
}

// checkZipELF refuses a kept ELF file of another machine than the wheel's
// arch.
func checkZipELF(zf *zip.File, want elf.Machine) error {
	r, err := zf.Open()
	if err != nil {
		return err
	}
	head := make([]byte, 64)
	k, _ := io.ReadFull(r, head)
	r.Close()
	head = head[:k]
	if !bytes.HasPrefix(head, []byte(elf.ELFMAG)) {
		return nil
	}
	ef, err := elf.NewFile(bytes.NewReader(head))
	if err != nil {
		// The section headers lie beyond the first bytes; the file
		// header is enough for the machine.
		if len(head) < 20 {
			return fmt.Errorf("%s: bad ELF header", zf.Name)
		}
		return machineFromHeader(zf.Name, head, want)
	}
	if ef.Machine != want {
		return fmt.Errorf("%s is %v, the wheel's arch needs %v", zf.Name, ef.Machine, want)
	}
	return nil
}

func machineFromHeader(name string, head []byte, want elf.Machine) error {
	var m elf.Machine
	switch elf.Data(head[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		m = elf.Machine(uint16(head[18]) | uint16(head[19])<<8)
	default:
		m = elf.Machine(uint16(head[19]) | uint16(head[18])<<8)
	}
	if m != want {
		return fmt.Errorf("%s is %v, the wheel's arch needs %v", name, m, want)
	}
	return nil
}

// pep691 is a project page of PEP 691's JSON API, api-version 1.0.
type pep691 struct {
	Meta struct {
		APIVersion string `json:"api-version"`
	} `json:"meta"`
	Name  string       `json:"name"`
	Files []pep691File `json:"files"`
}

type pep691File struct {
	Filename string            `json:"filename"`
	URL      string            `json:"url"`
	Hashes   map[string]string `json:"hashes"`
	Size     int64             `json:"size"`
}

// writeIndex writes out/www/pypi/simple/<project>/index.html, a PEP 691
// JSON page (index.html so that a plain static server answers the folder's
// URL; the tier's server gives it PEP 691's Content-Type), linking the slim
// wheels in out/www/pypi/files/ relatively.
func writeIndex(out string, byProject map[string][]pep691File) ([]string, error) {
	projects := make([]string, 0, len(byProject))
	for p := range byProject {
		projects = append(projects, p)
	}
	slices.Sort(projects)
	var pages []string
	for _, p := range projects {
		var page pep691
		page.Meta.APIVersion = "1.0"
		page.Name = p
		page.Files = byProject[p]
		slices.SortFunc(page.Files, func(a, b pep691File) int { return strings.Compare(a.Filename, b.Filename) })
		data, err := json.MarshalIndent(page, "", "  ")
		if err != nil {
			return nil, err
		}
		data = append(data, '\n')
		// The page must be what cudapkgs reads.
		rel := path.Join("pypi/simple", p) + "/"
		if _, err := pyindex.ParsePage("http://127.0.0.1/"+rel, p, pyindex.ContentType, data); err != nil {
			return nil, fmt.Errorf("the index page written for %s does not parse: %w", p, err)
		}
		if err := writeFile(filepath.Join(out, "www", rel, "index.html"), data); err != nil {
			return nil, err
		}
		pages = append(pages, rel)
	}
	return pages, nil
}
