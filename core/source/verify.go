package source

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/manifest"
)

// Problem is one disagreement between a manifests folder and a lock.
type Problem struct {
	File string // a Key
	Msg  string
}

func (p Problem) String() string { return p.File + ": " + p.Msg }

// VerifyError lists every problem Verify found, sorted by file.
type VerifyError struct {
	Dir, LockFile string
	Problems      []Problem
}

func (e *VerifyError) Error() string {
	s := "s"
	if len(e.Problems) == 1 {
		s = ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s does not match %s: %d problem%s", e.Dir, e.LockFile, len(e.Problems), s)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Verify checks a manifests folder (<dir>/<product>/redistrib_<v>.json, such
// as the cache) against a lock: every lock entry must be in the folder with
// its sha256 and size, and every manifest in the folder must be in the lock.
// It returns how many manifests matched, and a *VerifyError naming every
// problem when there is any. Other files and hidden folders are ignored.
func Verify(dir string, lock *Lock) (int, error) {
	return VerifyContext(context.Background(), dir, lock)
}

// VerifyContext is Verify ended by ctx (Ctrl-C).
func VerifyContext(ctx context.Context, dir string, lock *Lock) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("reading manifests folder: %w", err)
	}
	var problems []Problem
	inDir := map[string]string{} // key -> path
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, fmt.Errorf("reading manifests folder: %w", err)
		}
		for _, f := range files {
			if _, ok := manifest.ReleaseFromFileName(f.Name()); ok && !f.IsDir() {
				inDir[e.Name()+"/"+f.Name()] = filepath.Join(dir, e.Name(), f.Name())
			}
		}
	}
	matched := 0
	for _, k := range slices.Sorted(maps.Keys(lock.Manifests)) {
		want := lock.Manifests[k]
		path, ok := inDir[k]
		if !ok {
			problems = append(problems, Problem{k, fmt.Sprintf("listed in %s but missing from %s", lock.Path, dir)})
			continue
		}
		data, err := inputfile.Read(ctx, path, inputfile.Manifest)
		if ctx.Err() != nil {
			return 0, fmt.Errorf("verifying %s: %w", dir, context.Cause(ctx))
		}
		if err != nil {
			problems = append(problems, Problem{k, err.Error()})
			continue
		}
		if got := EntryFor(data); got != want {
			problems = append(problems, Problem{k, fmt.Sprintf("sha256 %s (%d bytes) does not match %s, which expects %s (%d bytes)", got.SHA256, got.Size, lock.Path, want.SHA256, want.Size)})
			continue
		}
		matched++
	}
	for _, k := range slices.Sorted(maps.Keys(inDir)) {
		if _, ok := lock.Manifests[k]; !ok {
			problems = append(problems, Problem{k, fmt.Sprintf("in %s but not in %s", dir, lock.Path)})
		}
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(i, j int) bool { return problems[i].File < problems[j].File })
		return matched, &VerifyError{Dir: dir, LockFile: lock.Path, Problems: problems}
	}
	return matched, nil
}
