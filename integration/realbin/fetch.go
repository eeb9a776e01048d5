package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Fetcher downloads artifacts into <cache>/downloads, verified by sha256.
type Fetcher struct {
	Cache string
	Log   io.Writer
	// Downloaded counts the bytes downloaded by this run.
	Downloaded int64
	aptUpdated bool
}

func (f *Fetcher) downloads() string { return filepath.Join(f.Cache, "downloads") }

// Path is where an artifact lies once fetched.
func (f *Fetcher) Path(a *Artifact) string { return filepath.Join(f.downloads(), a.File) }

// Fetch makes sure the artifact is in the cache with its locked sha256.
func (f *Fetcher) Fetch(a *Artifact) error {
	p := f.Path(a)
	if _, err := os.Stat(p); err == nil {
		return verify(a, p)
	}
	if err := os.MkdirAll(f.downloads(), 0o755); err != nil {
		return err
	}
	var err error
	switch a.Kind {
	case "wheel":
		err = f.pip(a)
	case "deb":
		err = f.apt(a)
	}
	if err != nil {
		return fmt.Errorf("downloading %s: %w", a.ID, err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("downloading %s: %s not there afterwards: %w", a.ID, a.File, err)
	}
	f.Downloaded += fi.Size()
	return verify(a, p)
}

// verify checks the sha256 (and size, when locked) of a cached artifact; a
// file that does not match is deleted.
func verify(a *Artifact, p string) error {
	sum, n, err := fileSHA256(p)
	if err != nil {
		return err
	}
	if sum != a.SHA256 || a.Size != 0 && n != a.Size {
		os.Remove(p)
		return fmt.Errorf("artifact %s: %s has sha256 %s (%d bytes), the lock says %s (%d bytes); deleted it, run again to download it again, or fix the lock", a.ID, p, sum, n, a.SHA256, a.Size)
	}
	return nil
}

func fileSHA256(p string) (string, int64, error) {
	r, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func wheelPlatforms(arch string) []string {
	return []string{"manylinux2014_" + arch, "manylinux_2_17_" + arch, "manylinux_2_27_" + arch, "manylinux_2_28_" + arch}
}

func (f *Fetcher) pip(a *Artifact) error {
	if err := exec.Command("python3", "-m", "pip", "--version").Run(); err != nil {
		return fmt.Errorf("python3 -m pip is not available (%v): install python3-pip", err)
	}
	tmp, err := os.MkdirTemp(f.downloads(), ".pip-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := []string{"-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version", "3.12", "--disable-pip-version-check", "--progress-bar", "off"}
	for _, p := range wheelPlatforms(a.Arch) {
		args = append(args, "--platform", p)
	}
	args = append(args, "-d", tmp, a.Name+"=="+a.Version)
	cmd := exec.Command("python3", args...)
	cmd.Stdout, cmd.Stderr = f.Log, f.Log
	fmt.Fprintf(f.Log, "realbin: pip download %s (%s)\n", a.ID, a.File)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pip download %s==%s: %w", a.Name, a.Version, err)
	}
	got := filepath.Join(tmp, a.File)
	if _, err := os.Stat(got); err != nil {
		ents, _ := os.ReadDir(tmp)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return fmt.Errorf("pip did not download %s (got %v)", a.File, names)
	}
	return os.Rename(got, f.Path(a))
}

// apt is Debian sid's archive through a private apt configuration.
func (f *Fetcher) apt(a *Artifact) error {
	dir := filepath.Join(f.Cache, "apt")
	for _, d := range []string{"lists/partial", "archives/partial", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	mirror, err := debianMirror()
	if err != nil {
		return err
	}
	src := fmt.Sprintf("deb [arch=amd64,arm64] %s sid main contrib non-free\n", mirror)
	if err := os.WriteFile(filepath.Join(dir, "etc/sources.list"), []byte(src), 0o644); err != nil {
		return err
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + filepath.Join(dir, "etc/sources.list"),
		"-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + filepath.Join(dir, "lists"),
		"-o", "Dir::Cache::Archives=" + filepath.Join(dir, "archives"),
		"-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache=",
		"-o", "APT::Architectures::=amd64", "-o", "APT::Architectures::=arm64",
		"-o", "Acquire::Check-Valid-Until=false", "-o", "Acquire::Languages=none",
	}
	run := func(wd string, args ...string) error {
		cmd := exec.Command("apt-get", append(append([]string{}, opts...), args...)...)
		cmd.Dir = wd
		cmd.Stdout, cmd.Stderr = f.Log, f.Log
		fmt.Fprintf(f.Log, "realbin: apt-get %s\n", strings.Join(args, " "))
		return cmd.Run()
	}
	if !f.aptUpdated {
		if err := run(dir, "update"); err != nil {
			return fmt.Errorf("apt-get update (Debian sid from %s): %w", mirror, err)
		}
		f.aptUpdated = true
	}
	if err := run(f.downloads(), "download", a.Name+":"+a.Arch+"="+a.Version); err != nil {
		return fmt.Errorf("apt-get download %s:%s=%s: %w", a.Name, a.Arch, a.Version, err)
	}
	return nil
}

// debianMirror is the URIs: line of the machine's debian.sources (or
// deb.debian.org).
func debianMirror() (string, error) {
	r, err := os.Open("/etc/apt/sources.list.d/debian.sources")
	if errors.Is(err, os.ErrNotExist) {
		return "http://deb.debian.org/debian", nil
	}
	if err != nil {
		return "", err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "URIs:"); ok {
			if fs := strings.Fields(u); len(fs) > 0 {
				return fs[0], nil
			}
		}
	}
	return "http://deb.debian.org/debian", sc.Err()
}
