package snapshot

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
)

// The embedded archive holds exactly the lock's manifests, each with its
// sha256 and size, and snapshot.json's count and archive sha256.
func TestEmbeddedMatchesLock(t *testing.T) {
	fsys, err := FS()
	if err != nil {
		t.Fatal(err)
	}
	lock, err := Lock()
	if err != nil {
		t.Fatal(err)
	}
	info, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if _, ok := lock.Manifests[p]; !ok {
				t.Errorf("%s: not in the lock", p)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(lock.Manifests) || n != info.Manifests {
		t.Errorf("%d files, %d in the lock, %d in %s", n, len(lock.Manifests), info.Manifests, InfoFile)
	}
	// The lock file is what Marshal writes (sorted, indented): rebuild's.
	data, err := os.ReadFile(LockFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, lock.Marshal()) {
		t.Errorf("%s is not in the lock file's canonical form", LockFile)
	}
}

// Every product the built-in plugins serve is in the snapshot, TensorRT's
// manifests and the newer redist products included, and every manifest
// loads without a warning.
func TestEmbeddedLoads(t *testing.T) {
	fsys, err := FS()
	if err != nil {
		t.Fatal(err)
	}
	c, err := manifest.LoadFS(context.Background(), fsys, "<snapshot>", manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ws := c.Warnings(); len(ws) > 0 {
		t.Errorf("warnings: %v", ws)
	}
	ps, err := builtin.Products()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.List {
		if len(c.Releases(p.Name)) == 0 {
			t.Errorf("no %s manifest: every built-in product has its manifests in the snapshot", p.Name)
		}
	}
	if len(c.Releases("cuda")) < 30 {
		t.Errorf("only %d CUDA releases", len(c.Releases("cuda")))
	}
}

// A changed byte, a missing or extra manifest, or a wrong archive sha256
// is refused with a message saying which.
func TestOpenRefusesTampering(t *testing.T) {
	lock, _ := Lock()
	info, _ := Embedded()
	files, err := Read(archive)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(append([]byte{}, archive...), lock, Info{Date: info.Date, Manifests: info.Manifests, ArchiveSHA256: strings.Repeat("0", 64)}); err == nil || !strings.Contains(err.Error(), "snapshot.json says") {
		t.Errorf("wrong archive sha256: %v", err)
	}
	key := "cuda/redistrib_12.4.1.json"
	changed := maps.Clone(files)
	changed[key] = append(bytes.Clone(files[key]), ' ')
	if err := Check(changed, lock); err == nil || !strings.Contains(err.Error(), key+": sha256") {
		t.Errorf("changed: %v", err)
	}
	delete(changed, key)
	changed["cuda/redistrib_99.0.0.json"] = []byte("{}")
	err = Check(changed, lock)
	if err == nil || !strings.Contains(err.Error(), key+": in the lock, missing from the archive") || !strings.Contains(err.Error(), "cuda/redistrib_99.0.0.json: in the archive, missing from the lock") {
		t.Errorf("missing and extra: %v", err)
	}
}

// Build is deterministic and Read is its inverse.
func TestBuildRoundTrip(t *testing.T) {
	files, err := Read(archive)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(files)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(maps.Clone(files))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two builds of the same manifests differ")
	}
	back, err := Read(a)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(files, back, bytes.Equal) {
		t.Error("Read(Build(files)) != files")
	}
	if _, err := Build(map[string][]byte{"../x/redistrib_1.0.json": nil}); err == nil {
		t.Error("a name outside the layout was archived")
	}
}

// SOURCES.md gives every manifest of the snapshot its provenance.
func TestSourcesNamesEveryManifest(t *testing.T) {
	data, err := os.ReadFile(SourcesFile)
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := Lock()
	for _, k := range slices.Sorted(maps.Keys(lock.Manifests)) {
		if !bytes.Contains(data, []byte("\n| "+k+" |")) {
			t.Errorf("%s has no row in %s", k, SourcesFile)
		}
	}
}

// The snapshot is current with the project's shared manifests (when they
// are there): every NVIDIA manifest there of a built-in product is in the
// snapshot, byte for byte, and the snapshot holds no other product's folder
// (folders of products no plugin serves would only warn "not a known
// product" and break --strict for the snapshot's users). The manifests made
// from wheels (wheels/, recorded by manifests fetch) are in it too.
func TestCurrentWithShared(t *testing.T) {
	dir := shared.Manifests(t)
	files, err := Read(archive)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	ps, err := builtin.Products()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.List {
		known[p.Name] = true
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "redistrib_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	made, err := filepath.Glob(filepath.Join("wheels", "*", "redistrib_*.json"))
	if err != nil || len(made) == 0 {
		t.Fatalf("no manifests made from wheels in wheels/: %v", err)
	}
	taken := 0
	for _, p := range append(paths, made...) {
		key := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(p, dir+string(filepath.Separator)), "wheels"+string(filepath.Separator)))
		if !known[strings.SplitN(key, "/", 2)[0]] {
			continue
		}
		taken++
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := files[key]; !ok || !bytes.Equal(got, b) {
			t.Errorf("%s differs from the snapshot's copy (present: %t); run go run ./snapshot/rebuild -from %s", key, ok, dir)
		}
	}
	for key := range files {
		if !known[strings.SplitN(key, "/", 2)[0]] {
			t.Errorf("the snapshot holds %s, of no built-in product", key)
		}
	}
	if taken != len(files) {
		t.Errorf("shared has %d manifests of built-in products, the snapshot %d", taken, len(files))
	}
}

// BenchmarkOpen is what a run pays to read the snapshot: decompress, check
// against the lock, parse every manifest.
func BenchmarkOpen(b *testing.B) {
	lock, _ := Lock()
	info, _ := Embedded()
	for b.Loop() {
		fsys, err := Open(archive, lock, info)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := manifest.LoadFS(context.Background(), fsys, "<snapshot>", manifest.LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecompress is Open alone: gunzip, untar, sha256 of every file.
func BenchmarkDecompress(b *testing.B) {
	lock, _ := Lock()
	info, _ := Embedded()
	for b.Loop() {
		if _, err := Open(archive, lock, info); err != nil {
			b.Fatal(err)
		}
	}
}
