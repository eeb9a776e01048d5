// Package snapshot is the copy of NVIDIA's manifests that cudapkgs carries
// in its binary: every product's redistrib_<version>.json (the TensorRT
// manifests written in their shape), compressed, with a lock of their
// sha256. Without --manifests it is the default source, merged under the
// download cache (the cache wins per product and release).
//
// The data is manifests.tar.gz, manifests.lock (in cudapkgs.lock's format)
// and snapshot.json (the date it was taken, the archive's sha256) beside this
// file; SOURCES.md says where every manifest comes from. go run
// ./snapshot/rebuild rebuilds all four from a folder of manifests.
package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/source"
)

// The files, as the repository holds them.
const (
	ArchiveFile = "manifests.tar.gz"
	LockFile    = "manifests.lock"
	InfoFile    = "snapshot.json"
	SourcesFile = "SOURCES.md"
)

var (
	//go:embed manifests.tar.gz
	archive []byte
	//go:embed manifests.lock
	lockData []byte
	//go:embed snapshot.json
	infoData []byte
)

// Info describes a snapshot: snapshot.json.
type Info struct {
	// Date is the day the snapshot was taken, YYYY-MM-DD.
	Date string `json:"date"`
	// Manifests is how many manifests it holds.
	Manifests int `json:"manifests"`
	// ArchiveSHA256 is the sha256 of manifests.tar.gz.
	ArchiveSHA256 string `json:"archive_sha256"`
}

// Time is Date as a time (midnight UTC).
func (i Info) Time() (time.Time, error) { return time.Parse(time.DateOnly, i.Date) }

// Marshal is snapshot.json's bytes: two-space indent, final newline.
func (i Info) Marshal() []byte {
	b, _ := json.MarshalIndent(i, "", "  ")
	return append(b, '\n')
}

// ParseInfo reads snapshot.json.
func ParseInfo(data []byte) (Info, error) {
	var i Info
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&i); err != nil {
		return Info{}, fmt.Errorf("%s: %w", InfoFile, err)
	}
	if _, err := i.Time(); err != nil {
		return Info{}, fmt.Errorf("%s: date %q: expected YYYY-MM-DD", InfoFile, i.Date)
	}
	return i, nil
}

// Embedded is the snapshot built into this binary.
func Embedded() (Info, error) { return ParseInfo(infoData) }

// Lock is the embedded lock.
func Lock() (*source.Lock, error) { return source.ParseLock(LockFile, lockData) }

// FS returns the embedded manifests as a file system laid out like a
// manifests folder, decompressed once and checked against the lock and
// snapshot.json.
var FS = sync.OnceValues(func() (fs.FS, error) {
	info, err := Embedded()
	if err != nil {
		return nil, err
	}
	lock, err := Lock()
	if err != nil {
		return nil, err
	}
	return Open(archive, lock, info)
})

// Open reads an archive and checks it: its sha256 is info's, it holds
// exactly the lock's manifests, each with the lock's sha256 and size.
func Open(data []byte, lock *source.Lock, info Info) (fs.FS, error) {
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != info.ArchiveSHA256 {
		return nil, fmt.Errorf("%s: sha256 %x, but %s says %s", ArchiveFile, sum, InfoFile, info.ArchiveSHA256)
	}
	files, err := Read(data)
	if err != nil {
		return nil, err
	}
	if len(files) != info.Manifests {
		return nil, fmt.Errorf("%s holds %d manifests, but %s says %d", ArchiveFile, len(files), InfoFile, info.Manifests)
	}
	if err := Check(files, lock); err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	for name, b := range files {
		fsys[name] = &fstest.MapFile{Data: b, Mode: 0o444}
	}
	return fsys, nil
}

// Check compares manifests (keyed <product>/redistrib_<version>.json) with
// a lock: every entry present with its sha256 and size, nothing else.
func Check(files map[string][]byte, lock *source.Lock) error {
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(lock.Manifests)) {
		want := lock.Manifests[k]
		b, ok := files[k]
		switch {
		case !ok:
			problems = append(problems, k+": in the lock, missing from the archive")
		case source.EntryFor(b) != want:
			got := source.EntryFor(b)
			problems = append(problems, fmt.Sprintf("%s: sha256 %s (%d bytes), the lock says %s (%d bytes)", k, got.SHA256, got.Size, want.SHA256, want.Size))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		if _, ok := lock.Manifests[k]; !ok {
			problems = append(problems, k+": in the archive, missing from the lock")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("snapshot does not match %s:\n  %s", lock.Path, strings.Join(problems, "\n  "))
	}
	return nil
}

// Build writes manifests (keyed <product>/redistrib_<version>.json) as a
// gzip-compressed tar: names sorted, no times, owners or modes of the
// machine, so the same manifests always give the same bytes with one Go
// release.
func Build(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := checkName(name); err != nil {
			return nil, err
		}
		b := files[name]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Read is Build's inverse: every manifest of the archive by name. Anything
// but <product>/redistrib_<version>.json regular files is an error.
func Read(data []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ArchiveFile, err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ArchiveFile, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%s: %s is not a regular file", ArchiveFile, hdr.Name)
		}
		if err := checkName(hdr.Name); err != nil {
			return nil, err
		}
		if _, dup := files[hdr.Name]; dup {
			return nil, fmt.Errorf("%s: %s is there twice", ArchiveFile, hdr.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", ArchiveFile, hdr.Name, err)
		}
		files[hdr.Name] = b
	}
	if err := zr.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", ArchiveFile, err)
	}
	return files, nil
}

func checkName(name string) error {
	if _, _, err := source.SplitKey(name); err != nil {
		return fmt.Errorf("%s: %w", ArchiveFile, err)
	}
	return nil
}

// Parse parses every manifest strictly, as the rebuild does before writing
// them: a snapshot holds no file the tool would refuse.
func Parse(files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		product, release, err := source.SplitKey(name)
		if err != nil {
			return err
		}
		if _, err := manifest.Parse(name, product, release, files[name]); err != nil {
			return err
		}
	}
	return nil
}
