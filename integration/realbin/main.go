// Command realbin turns NVIDIA's real binaries (PyPI wheels, Debian sid
// .debs) into redistributable archives in NVIDIA's layout and names, with
// manifests in NVIDIA's shape, for the integration tiers to serve from
// 127.0.0.1:
//
//	go run ./integration/realbin -out DIR [-set cuda13,cuda12] [-lock FILE] [-shared DIR] [-cache DIR]
//
// What is downloaded and how it is laid out is integration/realbin/lock.json;
// integration/README.md ("Real binaries") says more.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
)

func main() {
	if err := Main(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "realbin:", err)
		os.Exit(1)
	}
}

// Options are the command's flags.
type Options struct {
	Lock, Shared, Out, Cache string
	Sets                     []string // nil: all
}

// Main parses the flags and runs.
func Main(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("realbin", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := repoRoot()
	var o Options
	var sets string
	fl.StringVar(&o.Lock, "lock", filepath.Join(root, "integration/realbin/lock.json"), "lock file")
	fl.StringVar(&o.Shared, "shared", filepath.Join(root, "../shared/manifests"), "NVIDIA's real manifests (<product>/redistrib_<release>.json)")
	fl.StringVar(&o.Out, "out", "", "output folder (www/compute/<product>/redist/..., manifests/<product>/...)")
	fl.StringVar(&o.Cache, "cache", defaultCache(), "cache of downloads and repacked archives ($CUDAPKGS_REALBIN_CACHE)")
	fl.StringVar(&sets, "set", "", "comma-separated archive sets (default all)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if o.Out == "" || fl.NArg() > 0 {
		fl.Usage()
		return fmt.Errorf("-out DIR is required, and nothing else")
	}
	if sets != "" {
		o.Sets = strings.Split(sets, ",")
	}
	_, err := Run(o, stdout)
	return err
}

func defaultCache() string {
	if c := os.Getenv("CUDAPKGS_REALBIN_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "cudapkgs-realbin")
	}
	return filepath.Join(home, ".cache", "cudapkgs-realbin")
}

// repoRoot is the folder holding go.mod above the working directory (or the
// working directory).
func repoRoot() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

// Summary is what a run did.
type Summary struct {
	Downloaded, ArtifactBytes int64
	DownloadTime, RepackTime  time.Duration
	Archives                  []string // relative paths under Out, sorted
	Wheels                    []string // slim wheels' paths under Out, in the lock's order
	Host                      []string // host files' paths under Out, in the lock's order
}

// Run produces the archives and manifests of the chosen sets.
func Run(o Options, log io.Writer) (*Summary, error) {
	l, err := LoadLock(o.Lock)
	if err != nil {
		return nil, err
	}
	all := l.Sets()
	for _, s := range o.Sets {
		if !slices.Contains(all, s) {
			return nil, fmt.Errorf("-set %s: no such set in %s (sets: %s)", s, o.Lock, strings.Join(all, ", "))
		}
	}
	var chosen []*Archive
	for i := range l.Archives {
		if o.Sets == nil || slices.Contains(o.Sets, l.Archives[i].Set) {
			chosen = append(chosen, &l.Archives[i])
		}
	}
	var wheels []*SlimWheel
	for i := range l.Wheels {
		if o.Sets == nil || slices.Contains(o.Sets, l.Wheels[i].Set) {
			wheels = append(wheels, &l.Wheels[i])
		}
	}
	var host []*HostFile
	for i := range l.Host {
		if o.Sets == nil || slices.Contains(o.Sets, l.Host[i].Set) {
			host = append(host, &l.Host[i])
		}
	}
	// The real manifests first: nothing is downloaded for a lock that
	// claims a version NVIDIA did not publish.
	reals := map[string]*realManifest{}
	for _, ar := range chosen {
		k := ar.Product + "/" + ar.Release
		if reals[k] == nil {
			m, err := readReal(o.Shared, ar.Product, ar.Release)
			if err != nil {
				return nil, err
			}
			reals[k] = m
		}
		if err := reals[k].checkArchive(ar); err != nil {
			return nil, err
		}
	}
	sum := &Summary{}
	f := &Fetcher{Cache: o.Cache, Log: log}
	start := time.Now()
	seen := map[string]bool{}
	for _, ar := range chosen {
		for _, s := range ar.Sources {
			if seen[s.Artifact] {
				continue
			}
			seen[s.Artifact] = true
			a := l.Artifact(s.Artifact)
			if err := f.Fetch(a); err != nil {
				return nil, err
			}
			fi, err := os.Stat(f.Path(a))
			if err != nil {
				return nil, err
			}
			sum.ArtifactBytes += fi.Size()
		}
	}
	var fetch []string
	for _, w := range wheels {
		fetch = append(fetch, w.Artifact)
	}
	for _, h := range host {
		fetch = append(fetch, h.Artifact)
	}
	for _, id := range fetch {
		if seen[id] {
			continue
		}
		seen[id] = true
		a := l.Artifact(id)
		if err := f.Fetch(a); err != nil {
			return nil, err
		}
		fi, err := os.Stat(f.Path(a))
		if err != nil {
			return nil, err
		}
		sum.ArtifactBytes += fi.Size()
	}
	sum.Downloaded, sum.DownloadTime = f.Downloaded, time.Since(start)

	start = time.Now()
	byManifest := map[string][]made{}
	var lines []string
	for _, ar := range chosen {
		t := time.Now()
		p, err := Repack(l, ar, f)
		if err != nil {
			return nil, err
		}
		how := "cached"
		if p.Repacked {
			how = fmt.Sprintf("repacked in %.1fs", time.Since(t).Seconds())
		}
		rel := filepath.Join("www/compute", ar.Product, "redist", ar.RelativePath())
		if err := place(p.File, filepath.Join(o.Out, rel)); err != nil {
			return nil, err
		}
		sum.Archives = append(sum.Archives, rel)
		lines = append(lines, fmt.Sprintf("  %12d  %s (%d files, %s)", p.Size, rel, p.Files, how))
		k := ar.Product + "/" + ar.Release
		byManifest[k] = append(byManifest[k], made{ar, p})
	}
	byProject := map[string][]pep691File{}
	var total int64
	for _, w := range wheels {
		t := time.Now()
		a := l.Artifact(w.Artifact)
		p, err := Slim(w, a, f)
		if err != nil {
			return nil, err
		}
		how := "cached"
		if p.Repacked {
			how = fmt.Sprintf("slimmed in %.1fs", time.Since(t).Seconds())
		}
		rel := filepath.Join("www/pypi/files", a.File)
		if err := place(p.File, filepath.Join(o.Out, rel)); err != nil {
			return nil, err
		}
		sum.Wheels = append(sum.Wheels, rel)
		total += p.Size
		lines = append(lines, fmt.Sprintf("  %12d  %s (%d files, %s)", p.Size, rel, p.Files, how))
		project := pyindex.Normalize(a.Name)
		byProject[project] = append(byProject[project], pep691File{
			Filename: a.File, URL: "../../files/" + a.File,
			Hashes: map[string]string{"sha256": p.SHA256}, Size: p.Size,
		})
	}
	if len(wheels) > 0 {
		for _, p := range l.IndexEmpty {
			if byProject[p] == nil {
				byProject[p] = []pep691File{}
			}
		}
	}
	for _, h := range host {
		t := time.Now()
		n, err := placeHost(h, l.Artifact(h.Artifact), f, o.Out)
		if err != nil {
			return nil, err
		}
		sum.Host = append(sum.Host, h.Rel())
		links := ""
		if len(h.Links) > 0 {
			links = ", linked as " + strings.Join(h.Links, ", ")
		}
		lines = append(lines, fmt.Sprintf("  %12d  %s (from %s:%s%s, in %.1fs)", n, h.Rel(), h.Artifact, h.From, links, time.Since(t).Seconds()))
	}
	pages, err := writeIndex(o.Out, byProject)
	if err != nil {
		return nil, err
	}
	sum.RepackTime = time.Since(start)
	keys := make([]string, 0, len(byManifest))
	for k := range byManifest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := reals[k]
		data, err := writeManifest(m, byManifest[k])
		if err != nil {
			return nil, err
		}
		product, release, _ := strings.Cut(k, "/")
		if _, err := manifest.Parse(k, product, release, data); err != nil {
			return nil, fmt.Errorf("the manifest written for %s does not parse: %w", k, err)
		}
		for _, dst := range []string{
			filepath.Join(o.Out, "www/compute", product, "redist", manifest.FileName(release)),
			filepath.Join(o.Out, "manifests", product, manifest.FileName(release)),
		} {
			if err := writeFile(dst, data); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(sum.Archives)
	for _, ms := range byManifest {
		for _, m := range ms {
			total += m.p.Size
		}
	}
	fmt.Fprintf(log, "realbin: %d archives, %d slim wheels, %d host files in %s (sets %s)\n", len(chosen), len(wheels), len(host), o.Out, strings.Join(setsOf(chosen, wheels, host), ","))
	fmt.Fprintf(log, "realbin: downloaded %s this run in %.1fs; artifacts %s in all (cache %s)\n",
		mb(sum.Downloaded), sum.DownloadTime.Seconds(), mb(sum.ArtifactBytes), o.Cache)
	fmt.Fprintf(log, "realbin: repack %.1fs; archives and slim wheels %s in all (and the host files):\n", sum.RepackTime.Seconds(), mb(total))
	sort.Slice(lines, func(i, j int) bool { return lines[i][16:] < lines[j][16:] })
	for _, s := range lines {
		fmt.Fprintln(log, s)
	}
	for _, p := range pages {
		fmt.Fprintf(log, "  PEP 691 index page www/%s\n", p)
	}
	return sum, nil
}

func setsOf(as []*Archive, ws []*SlimWheel, hs []*HostFile) []string {
	var out []string
	for _, a := range as {
		if !slices.Contains(out, a.Set) {
			out = append(out, a.Set)
		}
	}
	for _, w := range ws {
		if !slices.Contains(out, w.Set) {
			out = append(out, w.Set)
		}
	}
	for _, h := range hs {
		if !slices.Contains(out, h.Set) {
			out = append(out, h.Set)
		}
	}
	sort.Strings(out)
	return out
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// place puts the cached archive at dst: a hard link when it can, a copy
// otherwise.
func place(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	os.Remove(dst)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	tmp := dst + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func writeFile(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
