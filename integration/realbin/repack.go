package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// formatVersion changes the cache key when the packing changes.
const formatVersion = 1

// xzArgs compress the tar: two threads (the block layout depends on the
// thread count, so it is fixed), the fastest preset.
var xzArgs = []string{"-T2", "-0", "-c"}

// Packed is a repacked archive in the cache.
type Packed struct {
	File   string `json:"-"`
	SHA256 string `json:"sha256"`
	MD5    string `json:"md5"`
	Size   int64  `json:"size"`
	Files  int    `json:"files"`
	// Repacked is true when this run made it.
	Repacked bool `json:"-"`
}

// Repack returns the archive from <cache>/repacked/<key>/, making it when it
// is not there.
func Repack(l *Lock, ar *Archive, f *Fetcher) (*Packed, error) {
	dir := filepath.Join(f.Cache, "repacked", l.cacheKey(ar))
	file := filepath.Join(dir, ar.Top()+".tar.xz")
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
	stage, err := os.MkdirTemp(dir, ".stage-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	top := filepath.Join(stage, ar.Top())
	n, err := l.stage(ar, f, top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ar.RelativePath(), err)
	}
	if err := checkELF(top, ar.Platform); err != nil {
		return nil, fmt.Errorf("%s: %w", ar.RelativePath(), err)
	}
	tmp := file + ".tmp"
	if err := writeTarXZ(stage, ar.Top(), tmp); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("%s: %w", ar.RelativePath(), err)
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

func sumFile(p string) (*Packed, error) {
	r, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, m := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(s, m), r)
	if err != nil {
		return nil, err
	}
	return &Packed{SHA256: hex.EncodeToString(s.Sum(nil)), MD5: hex.EncodeToString(m.Sum(nil)), Size: n}, nil
}

// entry is a file of an artifact.
type entry struct {
	name string
	mode fs.FileMode // type bits and permissions
	link string
	open func() (io.ReadCloser, error)
}

// stage puts the archive's files under top, as the lock maps them, and
// returns how many files and links it has.
func (l *Lock) stage(ar *Archive, f *Fetcher, top string) (int, error) {
	from := map[string]string{} // archive path -> where it came from
	n := 0
	put := func(dst, origin string, e entry) error {
		if !cleanRel(dst) {
			return fmt.Errorf("%s: %s maps to %q, not a clean relative path", origin, e.name, dst)
		}
		if prev, ok := from[dst]; ok {
			return fmt.Errorf("%s: both %s and %s", dst, prev, origin)
		}
		from[dst] = origin
		n++
		out := filepath.Join(top, filepath.FromSlash(dst))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if e.mode&fs.ModeSymlink != 0 {
			return os.Symlink(e.link, out)
		}
		perm := fs.FileMode(0o644)
		if e.mode&0o111 != 0 {
			perm = 0o755
		}
		w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		r, err := e.open()
		if err != nil {
			w.Close()
			return err
		}
		_, err = io.Copy(w, r)
		r.Close()
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(out, perm) // whatever the umask
		}
		return err
	}
	for i := range ar.Sources {
		s := &ar.Sources[i]
		a := l.Artifact(s.Artifact)
		used := map[int]bool{}
		err := readArtifact(a, f.Path(a), func(e entry) error {
			dst, ok, err := l.mapPath(s, e.name)
			if err != nil || !ok {
				return err
			}
			for j, m := range s.Map {
				if m.From == e.name || strings.HasSuffix(m.From, "/") && strings.HasPrefix(e.name, m.From) {
					used[j] = true
				}
			}
			return put(dst, a.ID+":"+e.name, e)
		})
		if err != nil {
			return 0, err
		}
		for j, m := range s.Map {
			if !used[j] {
				return 0, fmt.Errorf("%s: map entry %q matches no file", a.ID, m.From)
			}
		}
	}
	for _, w := range ar.Written {
		e := entry{name: w.Path, mode: 0o644}
		if w.Executable {
			e.mode = 0o755
		}
		if w.Link != "" {
			e.mode, e.link = fs.ModeSymlink|0o777, w.Link
		} else {
			content := w.Content
			e.open = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil }
		}
		if err := put(w.Path, "written", e); err != nil {
			return 0, err
		}
	}
	// A link must point at something in the archive.
	for dst := range from {
		out := filepath.Join(top, filepath.FromSlash(dst))
		if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(out); err != nil {
				t, _ := os.Readlink(out)
				return 0, fmt.Errorf("link %s -> %s points at nothing in the archive", dst, t)
			}
		}
	}
	return n, nil
}

// readArtifact calls fn for every file and link of a wheel or deb.
func readArtifact(a *Artifact, file string, fn func(entry) error) error {
	if a.Kind == "wheel" {
		z, err := zip.OpenReader(file)
		if err != nil {
			return fmt.Errorf("%s: %w", a.ID, err)
		}
		defer z.Close()
		for _, zf := range z.File {
			if strings.HasSuffix(zf.Name, "/") {
				continue
			}
			mode := zf.Mode()
			if mode&fs.ModeSymlink != 0 {
				return fmt.Errorf("%s: %s: a symbolic link in a wheel", a.ID, zf.Name)
			}
			zf := zf
			if err := fn(entry{name: path.Clean(zf.Name), mode: mode, open: zf.Open}); err != nil {
				return err
			}
		}
		return nil
	}
	return readDeb(a, file, fn)
}

// readDeb reads a Debian package's data.tar.* (ar archive, member data.tar,
// data.tar.gz or data.tar.xz).
func readDeb(a *Artifact, file string, fn func(entry) error) error {
	r, err := os.Open(file)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReader(r)
	magic := make([]byte, 8)
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != "!<arch>\n" {
		return fmt.Errorf("%s: not a Debian package (no ar header)", a.ID)
	}
	for {
		hdr := make([]byte, 60)
		if _, err := io.ReadFull(br, hdr); err != nil {
			return fmt.Errorf("%s: no data.tar member", a.ID)
		}
		name := strings.TrimSuffix(strings.TrimSpace(string(hdr[0:16])), "/")
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: bad ar member size: %w", a.ID, err)
		}
		if !strings.HasPrefix(name, "data.tar") {
			if _, err := br.Discard(int(size + size%2)); err != nil {
				return err
			}
			continue
		}
		body := io.LimitReader(br, size)
		var tr io.Reader
		switch name {
		case "data.tar":
			tr = body
		case "data.tar.gz":
			g, err := gzip.NewReader(body)
			if err != nil {
				return err
			}
			tr = g
		case "data.tar.xz":
			cmd := exec.Command("xz", "-dc")
			cmd.Stdin = body
			out, err := cmd.StdoutPipe()
			if err != nil {
				return err
			}
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("xz: %w", err)
			}
			err = readTar(a, out, fn)
			io.Copy(io.Discard, out)
			if werr := cmd.Wait(); err == nil && werr != nil {
				err = fmt.Errorf("%s: xz -dc %s: %w", a.ID, name, werr)
			}
			return err
		default:
			return fmt.Errorf("%s: %s: compression not supported", a.ID, name)
		}
		return readTar(a, tr, fn)
	}
}

func readTar(a *Artifact, r io.Reader, fn func(entry) error) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", a.ID, err)
		}
		name := strings.TrimPrefix(path.Clean(h.Name), "./")
		if name == "." || name == "" {
			continue
		}
		var e entry
		switch h.Typeflag {
		case tar.TypeReg:
			data := tr
			e = entry{name: name, mode: fs.FileMode(h.Mode).Perm(), open: func() (io.ReadCloser, error) { return io.NopCloser(data), nil }}
		case tar.TypeSymlink:
			e = entry{name: name, mode: fs.ModeSymlink | 0o777, link: h.Linkname}
		case tar.TypeDir:
			continue
		default:
			e = entry{name: name, mode: 0, open: func() (io.ReadCloser, error) {
				return nil, fmt.Errorf("%s: %s: tar entry type %q not supported", a.ID, name, h.Typeflag)
			}}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// checkELF fails when an ELF file of the archive is for another machine than
// the platform's.
func checkELF(top, platform string) error {
	want := elf.EM_X86_64
	if platform == "linux-sbsa" {
		want = elf.EM_AARCH64
	}
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		r, err := os.Open(p)
		if err != nil {
			return err
		}
		defer r.Close()
		magic := make([]byte, 4)
		if _, err := io.ReadFull(r, magic); err != nil || !bytes.Equal(magic, []byte(elf.ELFMAG)) {
			return nil
		}
		ef, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("%s: bad ELF: %w", p, err)
		}
		if ef.Machine != want {
			rel, _ := filepath.Rel(top, p)
			return fmt.Errorf("%s is %v, %s needs %v", rel, ef.Machine, platform, want)
		}
		return nil
	})
}

// writeTarXZ writes the folder root/top as a reproducible tar, compressed by
// xz: entries sorted by name, mtime 0, owner 0:0 with no names, mode 0755
// for folders and executables, 0644 otherwise, links kept.
func writeTarXZ(root, top, out string) error {
	var names []string
	err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	defer w.Close()
	cmd := exec.Command("xz", xzArgs...)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("xz: %w", err)
	}
	werr := writeTar(in, root, names)
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("xz %s: %w: %s", strings.Join(xzArgs, " "), err, stderr.String())
	}
	if werr != nil {
		return werr
	}
	return w.Close()
}

func writeTar(w io.Writer, root string, names []string) error {
	tw := tar.NewWriter(w)
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: name, ModTime: time.Unix(0, 0), Format: tar.FormatGNU, Mode: 0o644}
		switch {
		case fi.IsDir():
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, name+"/", 0o755
		case fi.Mode()&fs.ModeSymlink != 0:
			h.Typeflag, h.Mode = tar.TypeSymlink, 0o777
			if h.Linkname, err = os.Readlink(p); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			h.Typeflag, h.Size = tar.TypeReg, fi.Size()
			if fi.Mode()&0o111 != 0 {
				h.Mode = 0o755
			}
		default:
			return fmt.Errorf("%s: not a file, folder or link", name)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			r, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, r)
			r.Close()
			if err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return errors.Join(err)
	}
	return nil
}
