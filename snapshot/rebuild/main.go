// Command rebuild writes the manifests snapshot that cudapkgs embeds from a
// folder of manifests laid out as <product>/redistrib_<version>.json:
//
//	go run ./snapshot/rebuild -from ../shared/manifests [-date YYYY-MM-DD] [-out snapshot] [-products a,b]
//
// It reads every <product>/redistrib_<version>.json of the folder whose
// product is a built-in one (-products, by default the built-in plugins'
// products: a folder no plugin serves would only give the snapshot's users
// "not a known product" warnings and break --strict; it is named in the
// summary as left out; other files are left out too), parses each strictly (a file cudapkgs would refuse
// stops the rebuild), and writes into -out: manifests.tar.gz, manifests.lock
// (every manifest's sha256 and size, in cudapkgs.lock's format),
// snapshot.json (the date, the count, the archive's sha256) and SOURCES.md
// (the rows of the folder's own SOURCES.md that name a manifest taken, with
// its preamble, so each keeps its provenance). The same folder and date
// give the same files.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/renameio/v2/maybe"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

func main() {
	from := flag.String("from", "", "folder of manifests laid out as <product>/redistrib_<version>.json (required)")
	out := flag.String("out", "snapshot", "the snapshot package's folder")
	date := flag.String("date", time.Now().UTC().Format(time.DateOnly), "the snapshot's date, YYYY-MM-DD")
	products := flag.String("products", strings.Join(builtinProducts(), ","), "the product folders taken, comma-separated")
	flag.Parse()
	if *from == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./snapshot/rebuild -from DIR [-date YYYY-MM-DD] [-out snapshot]")
		os.Exit(2)
	}
	sum, err := rebuild(*from, *out, *date, strings.Split(*products, ","))
	if err != nil {
		fmt.Fprintf(os.Stderr, "rebuild: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(sum)
}

// builtinProducts are the products the built-in plugins serve, sorted.
func builtinProducts() []string {
	var out []string
	ps, err := builtin.Products()
	if err != nil {
		panic(err) // the built-ins' own facts: a bug in this program
	}
	for _, p := range ps.List {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rebuild writes the snapshot's four files from the folders of products and
// returns a one-line summary.
func rebuild(from, out, date string, products []string) (string, error) {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return "", fmt.Errorf("-date %q: expected YYYY-MM-DD", date)
	}
	files, skipped, err := collect(from, products)
	if err != nil {
		return "", err
	}
	if err := snapshot.Parse(files); err != nil {
		return "", err
	}
	archive, err := snapshot.Build(files)
	if err != nil {
		return "", err
	}
	lock := source.NewLock(filepath.Join(out, snapshot.LockFile))
	for name, b := range files {
		lock.Manifests[name] = source.EntryFor(b)
	}
	sum := sha256.Sum256(archive)
	info := snapshot.Info{Date: date, Manifests: len(files), ArchiveSHA256: hex.EncodeToString(sum[:])}
	sources, err := provenance(from, files, info)
	if err != nil {
		return "", err
	}
	raw := 0
	for _, b := range files {
		raw += len(b)
	}
	for name, data := range map[string][]byte{
		snapshot.ArchiveFile: archive,
		snapshot.LockFile:    lock.Marshal(),
		snapshot.InfoFile:    info.Marshal(),
		snapshot.SourcesFile: sources,
	} {
		if err := maybe.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return "", err
		}
	}
	summary := fmt.Sprintf("%d manifests, %d bytes, compressed to %d bytes in %s (%s)", len(files), raw, len(archive), filepath.Join(out, snapshot.ArchiveFile), date)
	if len(skipped) > 0 {
		summary += "; left out (no built-in product): " + strings.Join(skipped, ", ")
	}
	return summary, nil
}

// collect reads every <product>/redistrib_<version>.json of dir whose
// product is one of products, and names the other folders.
func collect(dir string, products []string) (map[string][]byte, []string, error) {
	folders, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{}
	var skipped []string
	for _, p := range folders {
		if !p.IsDir() {
			continue
		}
		if !slices.Contains(products, p.Name()) {
			skipped = append(skipped, p.Name())
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, p.Name()))
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			if _, ok := manifest.ReleaseFromFileName(e.Name()); !ok || !e.Type().IsRegular() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, p.Name(), e.Name()))
			if err != nil {
				return nil, nil, err
			}
			files[p.Name()+"/"+e.Name()] = b
		}
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%s: %w", dir, manifest.ErrNoManifests)
	}
	return files, skipped, nil
}

// provenance is the snapshot's SOURCES.md: a header, then the source
// folder's SOURCES.md cut down to what the snapshot holds (its preamble,
// and each section's table rows naming a manifest taken). A manifest no
// row names is listed at the end with its sha256 only.
func provenance(from string, files map[string][]byte, info snapshot.Info) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# SOURCES for snapshot/\n\n")
	fmt.Fprintf(&b, "The manifests cudapkgs embeds (`%s`, %d manifests, taken %s), rebuilt with\n", snapshot.ArchiveFile, info.Manifests, info.Date)
	fmt.Fprintf(&b, "`go run ./snapshot/rebuild -from DIR -date %s` from a folder of NVIDIA's manifests (the project's\n", info.Date)
	fmt.Fprintf(&b, "`shared/manifests`). `%s` pins every manifest's sha256 and size; `%s` the archive's.\n", snapshot.LockFile, snapshot.InfoFile)
	fmt.Fprintf(&b, "The bytes of each manifest are the source folder's, unchanged. What follows is that folder's\n")
	fmt.Fprintf(&b, "SOURCES.md, cut down by the rebuild to the files the snapshot holds.\n\n")
	named := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(from, "SOURCES.md"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if err == nil {
		cutSources(&b, data, files, named)
	}
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(files)) {
		if !named[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n## Without a row in the source folder's SOURCES.md\n\n| file | bytes | sha256 |\n|---|---|---|\n")
		for _, k := range missing {
			e := source.EntryFor(files[k])
			fmt.Fprintf(&b, "| %s | %d | %s |\n", k, e.Size, e.SHA256)
		}
	}
	return b.Bytes(), nil
}

// cutSources copies a SOURCES.md: its text before the first section, then
// per section its heading, the text up to its table, the table's header
// and only the rows whose first cell is a file of files (marked in named).
// Sections with no such row are left out.
func cutSources(b *bytes.Buffer, data []byte, files map[string][]byte, named map[string]bool) {
	type section struct {
		head []string // heading and text up to the table
		rows []string
	}
	var preamble []string
	var secs []*section
	var cur *section
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			// The source file's own title.
		case strings.HasPrefix(line, "## "):
			cur = &section{head: []string{line}}
			secs = append(secs, cur)
		case cur == nil:
			preamble = append(preamble, line)
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(line, "|")
			first := ""
			if len(cells) > 2 {
				first = strings.TrimSpace(cells[1])
			}
			if _, ok := files[first]; ok {
				cur.rows = append(cur.rows, line)
				named[first] = true
			} else if len(cur.rows) == 0 && (first == "file" || strings.HasPrefix(first, "---")) {
				cur.head = append(cur.head, line)
			}
		case len(cur.rows) == 0:
			cur.head = append(cur.head, line)
		}
	}
	for _, l := range trimBlank(preamble) {
		fmt.Fprintln(b, l)
	}
	for _, s := range secs {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintln(b)
		for _, l := range trimBlank(s.head) {
			fmt.Fprintln(b, l)
		}
		for _, l := range s.rows {
			fmt.Fprintln(b, l)
		}
	}
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
