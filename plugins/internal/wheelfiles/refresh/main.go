// Command refresh downloads NVIDIA's wheels named in wheels.txt from PyPI
// with pip, by name and version, lists the files inside and writes
// testdata/listings.json. Each wheel is deleted once listed.
//
//	go run ./plugins/internal/wheelfiles/refresh [-cache DIR] [-jobs N] [-all] [-repin] [-only SUBSTRING]
//	go run ./plugins/internal/wheelfiles/refresh -toolkit
//
// -toolkit rewrites wheels.txt's cuda lines instead, from NVIDIA's
// cuda-toolkit metapackage: every component wheel version that some CUDA
// release from 12.0 on pins, with the releases that ship it (toolkit.go).
//
// A wheel that listings.json already has is pinned: pip downloads it with
// --require-hashes against the recorded sha256, so a file replaced on PyPI
// fails the refresh instead of changing the listing quietly (-repin accepts
// new hashes). Without -all only the wheels that have no listing yet are
// downloaded. The cache folder (default ~/.cache/cudapkgs-wheels) must be
// outside the clone.
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

func main() {
	home, _ := os.UserHomeDir()
	cache := flag.String("cache", filepath.Join(home, ".cache", "cudapkgs-wheels"), "download folder, outside the clone")
	jobs := flag.Int("jobs", 4, "wheels downloaded at once")
	all := flag.Bool("all", false, "download every wheel again, not only those without a listing")
	repin := flag.Bool("repin", false, "accept a wheel whose sha256 differs from the recorded one")
	only := flag.String("only", "", "refresh only the wheels whose wheels.txt line contains this")
	dir := flag.String("dir", "plugins/internal/wheelfiles", "the wheelfiles folder")
	toolkit := flag.Bool("toolkit", false, "rewrite wheels.txt's cuda lines from the cuda-toolkit metapackage's pins, then stop")
	flag.Parse()

	specText, err := os.ReadFile(filepath.Join(*dir, "wheels.txt"))
	if err != nil {
		log.Fatal(err)
	}
	specs, err := wheelfiles.ParseSpecs(string(specText))
	if err != nil {
		log.Fatal(err)
	}
	if *toolkit {
		if err := os.MkdirAll(*cache, 0o755); err != nil {
			log.Fatal(err)
		}
		lines, err := toolkitLines(*cache, specs)
		if err != nil {
			log.Fatal(err)
		}
		p := filepath.Join(*dir, "wheels.txt")
		if err := os.WriteFile(p+".tmp", []byte(replaceCudaLines(string(specText), lines)), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			log.Fatal(err)
		}
		log.Printf("wrote %s: %d cuda lines", p, len(lines))
		return
	}
	out := filepath.Join(*dir, "testdata", "listings.json")
	old := map[string]wheelfiles.Listing{}
	if raw, err := os.ReadFile(out); err == nil {
		var f wheelfiles.File
		if err := json.Unmarshal(raw, &f); err != nil {
			log.Fatalf("%s: %v", out, err)
		}
		for _, l := range f.Listings {
			old[wheelfiles.SpecKey(l.Wheel, l.Version, l.Arch)] = l
		}
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		log.Fatal(err)
	}

	var (
		mu     sync.Mutex
		result = map[string]wheelfiles.Listing{}
		failed []string
		wg     sync.WaitGroup
		work   = make(chan wheelfiles.Spec)
	)
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				key := wheelfiles.SpecKey(s.Wheel, s.Version, s.Arch)
				pin := old[key].SHA256
				if *repin {
					pin = ""
				}
				l, err := fetch(*cache, s, pin)
				mu.Lock()
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", key, err))
					log.Printf("FAIL %s: %v", key, err)
				} else {
					result[key] = l
					log.Printf("ok   %s: %d files", key, len(l.Files))
				}
				mu.Unlock()
			}
		}()
	}
	var order []string
	for _, s := range specs {
		key := wheelfiles.SpecKey(s.Wheel, s.Version, s.Arch)
		order = append(order, key)
		l, have := old[key]
		if have && !*all {
			// Keep it, with what wheels.txt now says it is.
			l.Product, l.Release, l.Also, l.CUDA, l.Packages, l.Arch = s.Product, s.Release, s.Also, s.CUDA, s.Packages, s.Arch
			result[key] = l
			continue
		}
		if *only != "" && !strings.Contains(strings.Join([]string{s.Product, s.Release, s.Arch, s.Wheel + "==" + s.Version}, " "), *only) {
			if have {
				result[key] = l
			}
			continue
		}
		work <- s
	}
	close(work)
	wg.Wait()

	f := wheelfiles.File{Comment: "Written by go run ./plugins/internal/wheelfiles/refresh from wheels.txt: " +
		"the files of NVIDIA's wheels on PyPI, pinned by sha256. Do not edit; see docs/wheels.md."}
	seen := map[string]bool{}
	for _, k := range order {
		if l, ok := result[k]; ok && !seen[k] {
			seen[k] = true
			f.Listings = append(f.Listings, l)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		log.Fatal(err)
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(tmp, out); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d listings", out, len(f.Listings))
	if len(failed) > 0 {
		sort.Strings(failed)
		log.Fatalf("%d wheels failed:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}

// platforms are pip's --platform tags for an arch: NVIDIA's wheels are
// manylinux2014 (manylinux_2_17), manylinux_2_24/2_25 (CUDA 12.9 on) or
// manylinux_2_27/2_28. cuDSS's wheels are tagged manylinux_2_17 only, which
// pip does not take manylinux2014 to cover, so both spellings are listed.
func platforms(arch string) []string {
	var out []string
	for _, t := range []string{"manylinux_2_28", "manylinux_2_27", "manylinux_2_26", "manylinux_2_25", "manylinux_2_24", "manylinux_2_17", "manylinux2014"} {
		out = append(out, t+"_"+arch)
	}
	return out
}

var foundLink = regexp.MustCompile(`Found link (https://\S+)`)

// fetch downloads one wheel with pip into its own folder of cache, pinned to
// sha256 pin when set, lists it and deletes it.
func fetch(cache string, s wheelfiles.Spec, pin string) (wheelfiles.Listing, error) {
	l := wheelfiles.Listing{Product: s.Product, Release: s.Release, Also: s.Also, CUDA: s.CUDA, Packages: s.Packages, Arch: s.Arch,
		Wheel: s.Wheel, Version: s.Version}
	dir, err := os.MkdirTemp(cache, s.Wheel+"-")
	if err != nil {
		return l, err
	}
	defer os.RemoveAll(dir)
	args := []string{"-m", "pip", "download", "-vv", "--no-cache-dir", "--no-deps", "--only-binary=:all:",
		"--python-version", "3.12", "-d", dir}
	for _, p := range platforms(s.Arch) {
		args = append(args, "--platform", p)
	}
	if pin != "" {
		req := filepath.Join(dir, "requirements.txt")
		line := fmt.Sprintf("%s==%s --hash=sha256:%s\n", s.Wheel, s.Version, pin)
		if err := os.WriteFile(req, []byte(line), 0o644); err != nil {
			return l, err
		}
		args = append(args, "--require-hashes", "-r", req)
	} else {
		args = append(args, s.Wheel+"=="+s.Version)
	}
	cmd := exec.Command("python3", args...)
	var logOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logOut, &logOut
	if err := cmd.Run(); err != nil {
		tail := logOut.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return l, fmt.Errorf("pip download: %v\n%s", err, tail)
	}
	whls, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
	if len(whls) != 1 {
		return l, fmt.Errorf("pip download left %d wheels", len(whls))
	}
	l.File = filepath.Base(whls[0])
	for _, m := range foundLink.FindAllStringSubmatch(logOut.String(), -1) {
		if u := strings.SplitN(m[1], "#", 2)[0]; strings.HasSuffix(u, "/"+l.File) {
			l.URL = u
		}
	}
	if l.SHA256, err = sha256File(whls[0]); err != nil {
		return l, err
	}
	if pin != "" && l.SHA256 != pin {
		return l, fmt.Errorf("sha256 %s, pinned %s", l.SHA256, pin)
	}
	names, err := list(whls[0])
	if err != nil {
		return l, err
	}
	l.Root, l.Files = relative(names)
	return l, os.Remove(whls[0])
}

func sha256File(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// list reads the wheel's central directory: the kept file names, sorted.
func list(p string) ([]string, error) {
	z, err := zip.OpenReader(p)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	var out []string
	for _, f := range z.File {
		if wheelfiles.Kept(f.Name) {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// relative cuts the wheel's root off the names when they all share one.
func relative(names []string) (string, []string) {
	root := ""
	for i, n := range names {
		r := wheelfiles.RootOf(n)
		if i == 0 {
			root = r
		} else if r != root {
			return "", names
		}
	}
	if root == "" {
		return "", names
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimPrefix(n, root+"/")
	}
	return root, out
}
