package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errFound stops reading an artifact once the file is taken.
var errFound = errors.New("found")

// HostFile is a file of the machine a program runs on, outside every package
// set, that a tier puts beside its programs: the driver's libcuda.so.1, which
// NVIDIA's libraries need (libcublasmp.so.0) and which a machine with no GPU
// has not. It is one file of an artifact, as it is (no archive, no manifest),
// written to DIR/host/<platform>/<name>, with links to it in the same folder.
type HostFile struct {
	Set string `json:"set"`
	// Platform is NVIDIA's key (linux-x86_64, linux-sbsa): the ELF machine
	// the file must be, and the folder it goes to.
	Platform string `json:"platform"`
	Artifact string `json:"artifact"`
	// From is the file's path in the artifact (a regular file, not a link).
	From string `json:"from"`
	// Name is its name in host/<platform>/ (the library's SONAME).
	Name string `json:"name"`
	// Links are names in the same folder that link to Name (the link-time
	// name, libcuda.so).
	Links []string `json:"links,omitempty"`
	Why   string   `json:"why"`
}

// Rel is the file's path below the output folder.
func (h *HostFile) Rel() string { return filepath.Join("host", h.Platform, h.Name) }

func (l *Lock) checkHost(ids map[string]*Artifact) error {
	seen := map[string]bool{}
	plain := func(n string) bool { return cleanRel(n) && !strings.Contains(n, "/") }
	for _, h := range l.Host {
		a := ids[h.Artifact]
		where := "host file " + h.Platform + "/" + h.Name
		switch {
		case a == nil:
			return fmt.Errorf("%s: unknown artifact %q", where, h.Artifact)
		case !setRE.MatchString(h.Set):
			return fmt.Errorf("%s: bad set %q", where, h.Set)
		case h.Platform != "linux-x86_64" && h.Platform != "linux-sbsa":
			return fmt.Errorf("%s: platform %q: expected linux-x86_64 or linux-sbsa", where, h.Platform)
		case a.Arch != archOf(h.Platform, a.Kind):
			return fmt.Errorf("%s: artifact %s is %s, the platform needs %s", where, a.ID, a.Arch, archOf(h.Platform, a.Kind))
		case !cleanRel(h.From):
			return fmt.Errorf("%s: from %q is not a clean relative path", where, h.From)
		case !plain(h.Name):
			return fmt.Errorf("%s: name %q: expected a file name", where, h.Name)
		case h.Why == "":
			return fmt.Errorf("%s: why is empty: say what needs it and why this one", where)
		}
		for _, n := range append([]string{h.Name}, h.Links...) {
			if !plain(n) || seen[h.Platform+"/"+n] {
				return fmt.Errorf("%s: bad or repeated name %q", where, n)
			}
			seen[h.Platform+"/"+n] = true
		}
	}
	return nil
}

// placeHost writes the host file and its links into out, and returns its
// size.
func placeHost(h *HostFile, a *Artifact, f *Fetcher, out string) (int64, error) {
	dir := filepath.Join(out, "host", h.Platform)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	dst := filepath.Join(dir, h.Name)
	tmp := dst + ".tmp"
	var n int64
	err := readArtifact(a, f.Path(a), func(e entry) error {
		if e.name != h.From {
			return nil
		}
		if !e.mode.IsRegular() {
			return fmt.Errorf("%s: %s is not a regular file (a link? name the file it points at)", a.ID, e.name)
		}
		r, err := e.open()
		if err != nil {
			return err
		}
		defer r.Close()
		w, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		n, err = io.Copy(w, r)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return errFound
	})
	switch {
	case err == nil:
		return 0, fmt.Errorf("%s: %s: no such file in the artifact", h.Artifact, h.From)
	case !errors.Is(err, errFound):
		os.Remove(tmp)
		return 0, err
	}
	// The file's folder holds the file alone while it is checked: checkELF
	// looks at every file below it.
	check, err := os.MkdirTemp(dir, ".check-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(check)
	if err := os.Rename(tmp, filepath.Join(check, h.Name)); err != nil {
		return 0, err
	}
	if err := checkELF(check, h.Platform); err != nil {
		return 0, fmt.Errorf("%s: %s: %w", h.Artifact, h.From, err)
	}
	if err := os.Chmod(filepath.Join(check, h.Name), 0o644); err != nil {
		return 0, err
	}
	if err := os.Rename(filepath.Join(check, h.Name), dst); err != nil {
		return 0, err
	}
	for _, link := range h.Links {
		p := filepath.Join(dir, link)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
		if err := os.Symlink(h.Name, p); err != nil {
			return 0, err
		}
	}
	return n, nil
}
