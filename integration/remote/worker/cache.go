package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
)

// fileCache is a local content-addressed store of input files, keyed by
// digest hash. Entries are read-only and get hardlinked into exec dirs, so a
// blob that many actions share (the NVIDIA archives run to hundreds of MB) is
// fetched and stored once. The executable bit lives on the inode, so a digest
// needed both with and without it has two entries: HASH and HASH.x.
type fileCache struct {
	dir string
	tmp string // this process's scratch dir, on the cache's filesystem
	cas *casClient

	mu sync.Mutex
	// inflight maps an entry path to a channel closed when the goroutine that
	// claimed it is done, so concurrent actions never fetch the same blob twice.
	inflight map[string]chan struct{}
}

type cacheKey struct {
	digest *repb.Digest
	exec   bool
}

func newFileCache(dir string, cas *casClient) (*fileCache, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	tmpRoot := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return nil, fmt.Errorf("create cache: %w", err)
	}
	// Scratch dirs older than a day are left over by crashed workers (partial
	// downloads). Newer ones may belong to another worker sharing the cache.
	entries, _ := os.ReadDir(tmpRoot)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(tmpRoot, e.Name()))
		}
	}
	tmp, err := os.MkdirTemp(tmpRoot, "w")
	if err != nil {
		return nil, fmt.Errorf("create cache: %w", err)
	}
	return &fileCache{dir: dir, tmp: tmp, cas: cas, inflight: map[string]chan struct{}{}}, nil
}

// close removes the scratch dir.
func (c *fileCache) close() error { return os.RemoveAll(c.tmp) }

// path is where the entry for k lives.
func (c *fileCache) path(k cacheKey) string {
	p := filepath.Join(c.dir, k.digest.Hash[:2], k.digest.Hash)
	if k.exec {
		p += ".x"
	}
	return p
}

// has reports whether a sound entry for k exists. An entry of the wrong
// size (a crash mid-rename cannot cause one, but a hand edit can) is removed.
func (c *fileCache) has(k cacheKey) bool {
	fi, err := os.Lstat(c.path(k))
	if err != nil {
		return false
	}
	if !fi.Mode().IsRegular() || fi.Size() != k.digest.SizeBytes {
		os.Remove(c.path(k))
		return false
	}
	return true
}

// ensure makes every key present in the cache, fetching what is missing, and
// returns the number of bytes fetched from the CAS.
func (c *fileCache) ensure(ctx context.Context, keys []cacheKey) (int64, error) {
	var need []cacheKey
	seen := map[string]bool{}
	for _, k := range keys {
		if err := checkDigest(k.digest); err != nil {
			return 0, err
		}
		p := c.path(k)
		if seen[p] {
			continue
		}
		seen[p] = true
		if !c.has(k) {
			need = append(need, k)
		}
	}
	if len(need) == 0 {
		return 0, nil
	}

	// Claim the entries nobody else is fetching; wait for the rest.
	var mine, theirs []cacheKey
	var waits []chan struct{}
	c.mu.Lock()
	for _, k := range need {
		if ch, ok := c.inflight[c.path(k)]; ok {
			theirs = append(theirs, k)
			waits = append(waits, ch)
		} else {
			c.inflight[c.path(k)] = make(chan struct{})
			mine = append(mine, k)
		}
	}
	c.mu.Unlock()
	fetched, err := c.fill(ctx, mine)
	c.mu.Lock()
	for _, k := range mine {
		close(c.inflight[c.path(k)])
		delete(c.inflight, c.path(k))
	}
	c.mu.Unlock()
	if err != nil {
		return fetched, err
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return fetched, ctx.Err()
		}
	}
	// Another fetcher may have failed; whatever is still missing is ours now.
	var retry []cacheKey
	for _, k := range theirs {
		if !c.has(k) {
			retry = append(retry, k)
		}
	}
	if len(retry) > 0 {
		n, err := c.ensure(ctx, retry)
		fetched += n
		if err != nil {
			return fetched, err
		}
	}
	return fetched, nil
}

// fill creates the given (claimed, missing) entries.
func (c *fileCache) fill(ctx context.Context, keys []cacheKey) (int64, error) {
	// Group the wanted variants by digest: a digest is fetched at most once,
	// and the other variant is a local copy of the first.
	type want struct {
		digest   *repb.Digest
		variants []bool
	}
	var order []string
	byDigest := map[string]*want{}
	for _, k := range keys {
		w := byDigest[key(k.digest)]
		if w == nil {
			w = &want{digest: k.digest}
			byDigest[key(k.digest)] = w
			order = append(order, key(k.digest))
		}
		w.variants = append(w.variants, k.exec)
	}

	// finish writes the remaining variants of w from an existing entry.
	finish := func(w *want, from cacheKey) error {
		for _, exec := range w.variants {
			if exec == from.exec {
				continue
			}
			if err := c.copyEntry(from, cacheKey{w.digest, exec}); err != nil {
				return err
			}
		}
		return nil
	}

	var small []*repb.Digest
	var fetched int64
	for _, k := range order {
		w := byDigest[k]
		first := cacheKey{w.digest, w.variants[0]}
		// Another variant already cached: copy locally rather than download.
		if other := (cacheKey{w.digest, !first.exec}); c.has(other) {
			if err := finish(w, other); err != nil {
				return fetched, err
			}
			continue
		}
		switch {
		case w.digest.SizeBytes == 0:
			if err := c.writeEntry(first, func(io.Writer) error { return nil }); err != nil {
				return fetched, err
			}
		case w.digest.SizeBytes > c.cas.byteStreamThreshold:
			err := c.writeEntry(first, func(dst io.Writer) error { return c.cas.readStream(ctx, w.digest, dst) })
			if err != nil {
				return fetched, err
			}
			fetched += w.digest.SizeBytes
		default:
			small = append(small, w.digest)
			continue
		}
		if err := finish(w, first); err != nil {
			return fetched, err
		}
	}

	// Small blobs are fetched a batch at a time so memory stays bounded.
	for _, batch := range c.cas.batches(small) {
		blobs, err := c.cas.readBlobs(ctx, batch)
		if err != nil {
			return fetched, err
		}
		for _, d := range batch {
			w := byDigest[key(d)]
			first := cacheKey{d, w.variants[0]}
			data := blobs[key(d)]
			if err := c.writeEntry(first, func(dst io.Writer) error { _, err := dst.Write(data); return err }); err != nil {
				return fetched, err
			}
			fetched += d.SizeBytes
			if err := finish(w, first); err != nil {
				return fetched, err
			}
		}
	}
	return fetched, nil
}

// writeEntry writes an entry through a temp file: it checks the content
// against the digest, makes it read-only (and executable if asked), then
// renames it into place so that a half-written entry is never visible.
func (c *fileCache) writeEntry(k cacheKey, write func(io.Writer) error) error {
	f, err := os.CreateTemp(c.tmp, k.digest.Hash[:8]+"-*")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	err = write(cw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fetch %s: %w", key(k.digest), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != k.digest.Hash || cw.n != k.digest.SizeBytes {
		return fmt.Errorf("fetch %s: content hashes to %s/%d", key(k.digest), got, cw.n)
	}
	return c.install(tmp, k)
}

// copyEntry makes the other executable-bit variant of an entry from a local copy.
func (c *fileCache) copyEntry(from, to cacheKey) error {
	src, err := os.Open(c.path(from))
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer src.Close()
	return c.writeEntry(to, func(dst io.Writer) error { _, err := io.Copy(dst, src); return err })
}

func (c *fileCache) install(tmp string, k cacheKey) error {
	mode := os.FileMode(0o444)
	if k.exec {
		mode = 0o555
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path(k)), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(tmp, c.path(k)); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
