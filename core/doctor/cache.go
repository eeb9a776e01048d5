package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/source"
)

// Cache reports the manifests download cache (how many manifests of which
// products, whether a fetch holds its lock now) and the lock file of
// sha256s (present, parsed, and whether the cache matches it).
func Cache(env Env) []Finding {
	var out []Finding
	fetch := "cudapkgs manifests fetch --release cuda=12.4.1 (downloads, caches and locks them)"
	counts, total, err := cacheManifests(env.CacheDir)
	switch {
	case env.CacheDir == "":
		out = append(out, Finding{Check: "cache", Status: Info, Summary: "no cache folder (no user cache directory); the snapshot built into cudapkgs serves", Fix: "for newer releases, give --manifests DIR"})
	case errors.Is(err, os.ErrNotExist):
		out = append(out, Finding{Check: "cache", Status: Info, Summary: fmt.Sprintf("%s: no download cache yet; the snapshot built into cudapkgs serves", env.CacheDir),
			Fix: "for newer releases: " + fetch + ", or give --manifests DIR"})
	case err != nil:
		out = append(out, Finding{Check: "cache", Status: Warn, Summary: fmt.Sprintf("%s: %v", env.CacheDir, err), Fix: "check the folder's permissions"})
	case total == 0:
		out = append(out, Finding{Check: "cache", Status: Info, Summary: fmt.Sprintf("%s: exists, holds no manifests; the snapshot built into cudapkgs serves", env.CacheDir), Fix: "for newer releases: " + fetch})
	default:
		var parts []string
		for _, p := range sortedKeys(counts) {
			parts = append(parts, fmt.Sprintf("%s %d", p, counts[p]))
		}
		out = append(out, Finding{Check: "cache", Status: OK, Summary: fmt.Sprintf("%s: %d manifests (%s)", env.CacheDir, total, strings.Join(parts, ", "))})
	}
	if err == nil && env.CacheDir != "" {
		lockPath := filepath.Join(env.CacheDir, source.CacheLockName)
		if _, statErr := os.Stat(lockPath); statErr == nil {
			fl := flock.New(lockPath)
			if ok, lerr := fl.TryLock(); lerr == nil && !ok {
				out = append(out, Finding{Check: "cache", Status: Info, Summary: fmt.Sprintf("%s is held: a cudapkgs manifests fetch is running", lockPath),
					Fix: "wait for it; commands that read the cache meanwhile see what it has written so far"})
			} else if ok {
				_ = fl.Unlock()
			}
		}
	}

	lockFile := env.LockFile
	if lockFile == "" {
		lockFile = source.LockFileName
	}
	if !filepath.IsAbs(lockFile) && env.Workspace != "" {
		lockFile = filepath.Join(env.Workspace, lockFile)
	}
	if _, serr := os.Stat(lockFile); serr != nil {
		out = append(out, Finding{Check: "lock", Status: Info, Summary: fmt.Sprintf("%s: none, so downloaded manifests are not pinned by sha256", lockFile),
			Fix: "cudapkgs manifests fetch writes it; commit it with the workspace"})
		return out
	}
	lock, lerr := source.ReadLock(lockFile)
	if lerr != nil {
		return append(out, Finding{Check: "lock", Status: Warn, Summary: lerr.Error(),
			Fix: "fix or delete it, then cudapkgs manifests fetch writes a new one"})
	}
	if err != nil || total == 0 {
		return append(out, Finding{Check: "lock", Status: Warn, Summary: fmt.Sprintf("%s: %d manifests pinned, none of them cached", lockFile, len(lock.Manifests)),
			Fix: "cudapkgs manifests fetch downloads what it pins"})
	}
	n, verr := source.Verify(env.CacheDir, lock)
	var ve *source.VerifyError
	switch {
	case errors.As(verr, &ve):
		var probs []string
		for _, p := range ve.Problems {
			probs = append(probs, p.String())
		}
		out = append(out, Finding{Check: "lock", Status: Warn,
			Summary: fmt.Sprintf("%s: the cache does not match it (%d match, %d problems): %s", lockFile, n, len(ve.Problems), strings.Join(probs, "; ")),
			Fix:     "cudapkgs manifests fetch (downloads what is missing and locks what is new); --update-lock if NVIDIA changed a manifest on purpose"})
	case verr != nil:
		out = append(out, Finding{Check: "lock", Status: Warn, Summary: fmt.Sprintf("%s: %v", lockFile, verr), Fix: "cudapkgs manifests verify says more"})
	default:
		out = append(out, Finding{Check: "lock", Status: OK, Summary: fmt.Sprintf("%s: %d manifests pinned, the cache matches", lockFile, n)})
	}
	return out
}

// cacheManifests counts <dir>/<product>/redistrib_<version>.json.
func cacheManifests(dir string) (map[string]int, int, error) {
	if dir == "" {
		return nil, 0, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	counts := map[string]int{}
	total := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, 0, err
		}
		for _, f := range files {
			if _, ok := manifest.ReleaseFromFileName(f.Name()); ok {
				counts[e.Name()]++
				total++
			}
		}
	}
	return counts, total, nil
}
