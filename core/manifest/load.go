package manifest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
)

// Collection is every manifest read from one source, grouped by product.
// It is immutable once built and shared by every package set.
type Collection struct {
	byProduct map[string][]*Manifest // sorted by release, ascending
	refused   []Refused              // in file order
	origin    map[*Manifest]string   // set by Merge
}

// Refused is a manifest file refused whole (see Parse): its release is not
// served, and asking for it by name is an error carrying Err.
type Refused struct {
	File    string
	Product string
	Release string // as the file name says
	Err     error
	// ServedBy, set by Merge, names the later source whose copy of the
	// release serves instead; "" when none does.
	ServedBy string
}

// ErrNoManifests is wrapped by the error of a folder that holds no
// manifest at all.
var ErrNoManifests = errors.New("no manifests found")

// Origin names the source that served m (see Merge); "" for a collection
// read from one source.
func (c *Collection) Origin(m *Manifest) string { return c.origin[m] }

// Named is one source of manifests for Merge: its name, shown by Origin,
// and what it holds.
type Named struct {
	Name       string
	Collection *Collection
}

// Merge joins collections per (product, release): the first source that has
// a release serves it, and Origin says which. A file one source refused is
// served from a later source that has it (the refusal stays a warning); a
// release no source serves stays refused.
func Merge(srcs ...Named) (*Collection, error) {
	type key struct{ product, release string }
	served := map[key]string{}
	var ms []*Manifest
	origin := map[*Manifest]string{}
	for _, s := range srcs {
		if s.Collection == nil {
			continue
		}
		for _, m := range s.Collection.All() {
			k := key{m.Product, m.Release.String()}
			if _, done := served[k]; done {
				continue
			}
			served[k] = s.Name
			ms = append(ms, m)
			origin[m] = s.Name
		}
	}
	out, err := NewCollection(ms)
	if err != nil {
		return nil, err
	}
	out.origin = origin
	refusedAlready := map[key]bool{}
	for _, s := range srcs {
		if s.Collection == nil {
			continue
		}
		for _, r := range s.Collection.refused {
			k := key{r.Product, r.Release}
			if by, ok := served[k]; ok {
				r.ServedBy = by
			} else if refusedAlready[k] {
				continue
			}
			refusedAlready[k] = true
			out.refused = append(out.refused, r)
		}
	}
	return out, nil
}

// Refused returns the manifests refused whole, in file order, but for those
// a later source serves instead (see Merge).
func (c *Collection) Refused() []Refused {
	var out []Refused
	for _, r := range c.refused {
		if r.ServedBy == "" {
			out = append(out, r)
		}
	}
	return out
}

// With returns a collection holding c's manifests and ms (a user's own
// products), keeping c's refusals.
func (c *Collection) With(ms []*Manifest) (*Collection, error) {
	out, err := NewCollection(append(c.All(), ms...))
	if err != nil {
		return nil, err
	}
	out.refused = c.refused
	out.origin = c.origin
	return out, nil
}

// NewCollection groups manifests by product and sorts them by release. Two
// manifests for the same product and release are an error.
func NewCollection(ms []*Manifest) (*Collection, error) {
	c := &Collection{byProduct: map[string][]*Manifest{}}
	for _, m := range ms {
		c.byProduct[m.Product] = append(c.byProduct[m.Product], m)
	}
	for p, list := range c.byProduct {
		sort.Slice(list, func(i, j int) bool { return list[i].Release.Less(list[j].Release) })
		for i := 1; i < len(list); i++ {
			if list[i].Release.Equal(list[i-1].Release) {
				return nil, fmt.Errorf("%s and %s are both %s release %s", list[i-1].File, list[i].File, p, list[i].Release)
			}
		}
	}
	return c, nil
}

// Products returns the product names, sorted.
func (c *Collection) Products() []string { return slices.Sorted(maps.Keys(c.byProduct)) }

// All returns every manifest, by product then release.
func (c *Collection) All() []*Manifest {
	var all []*Manifest
	for _, p := range c.Products() {
		all = append(all, c.byProduct[p]...)
	}
	return all
}

// Releases returns a product's manifests, oldest first. The slice is shared:
// callers must not modify it.
func (c *Collection) Releases(product string) []*Manifest { return c.byProduct[product] }

// Warnings returns every manifest's warnings, and one per refused file, in a
// stable order. An unknown platform key is one warning for the whole
// collection, where it is first found, with how many packages and files
// carry it: NVIDIA's next platform would otherwise be a warning per package.
func (c *Collection) Warnings() []Warning {
	var ws []Warning
	for _, r := range c.refused {
		msg := fmt.Sprintf("manifest refused, %s %s is not served: %v", r.Product, r.Release, r.Err)
		if r.ServedBy != "" {
			msg = fmt.Sprintf("manifest refused, %s %s is served from the %s instead: %v", r.Product, r.Release, r.ServedBy, r.Err)
		}
		ws = append(ws, Warning{File: r.File, Path: "$", Msg: msg})
	}
	type carriers struct {
		at       int // index of the key's warning in ws
		packages int
		files    map[string]bool
	}
	keys := map[string]*carriers{}
	for _, p := range c.Products() {
		for _, m := range c.byProduct[p] {
			for _, w := range m.Warnings {
				if w.PlatformKey == "" {
					ws = append(ws, w)
					continue
				}
				k := keys[w.PlatformKey]
				if k == nil {
					k = &carriers{at: len(ws), files: map[string]bool{}}
					keys[w.PlatformKey] = k
					ws = append(ws, w)
				}
				k.packages++
				k.files[w.File] = true
			}
		}
	}
	for key, k := range keys {
		ws[k.at].Msg = unknownPlatformKey(key, k.packages, len(k.files))
	}
	return ws
}

// LoadDir reads <dir>/<product>/redistrib_<version>.json for every product
// folder in dir, in parallel. Other files and folders (nixpkgs feature
// manifests, release tables) are ignored. A file refused whole (see Parse)
// does not stop the others: it is in Refused, and its release is not served.
// Only a folder that cannot be read, or where no manifest loads, is an error
// (the first in file order, with a count of the others).
//
// Each file must be a regular file (a symbolic link to one is fine) of at
// most inputfile.Manifest.Max bytes; anything else is refused like a file
// that does not parse.
func LoadDir(dir string) (*Collection, error) {
	return Load(context.Background(), dir, LoadOptions{})
}

// LoadFS is Load over a file system laid out the same way (an embedded
// copy); name stands for its root in file names and messages.
func LoadFS(ctx context.Context, fsys fs.FS, name string, opts LoadOptions) (*Collection, error) {
	return load(ctx, tree{root: name, fsys: fsys}, opts)
}

// tree is a manifests folder: on disk (fsys nil) or in a file system.
type tree struct {
	root string
	fsys fs.FS
}

// name is what messages call elem inside the tree.
func (t tree) name(elem ...string) string { return filepath.Join(append([]string{t.root}, elem...)...) }

func (t tree) readDir(elem ...string) ([]fs.DirEntry, error) {
	if t.fsys == nil {
		return os.ReadDir(t.name(elem...))
	}
	return fs.ReadDir(t.fsys, path.Join(append([]string{"."}, elem...)...))
}

// readFile reads a file of the tree: one on disk only if it is a regular
// file within the manifest size limit, and never past ctx.
func (t tree) readFile(ctx context.Context, elem ...string) ([]byte, error) {
	if t.fsys == nil {
		return inputfile.Read(ctx, t.name(elem...), inputfile.Manifest)
	}
	return fs.ReadFile(t.fsys, path.Join(elem...))
}

// LoadOptions are Load's options.
type LoadOptions struct {
	// Check, when set, sees each manifest's bytes before they are parsed,
	// with its path and its key (<product>/redistrib_<version>.json): an
	// error stops the whole load (a lock file's pin that the bytes do not
	// match).
	Check func(file, key string, data []byte) error
	// Budget, when set, counts the bytes read against a limit shared by
	// every load of a run; going over it stops the load with a
	// *BudgetError.
	Budget *Budget
}

// DefaultMaxTotal is the default limit of a Budget: the bytes of manifests
// one run reads, all sources together. Each manifest is at most 64 MiB
// (inputfile.Manifest), but that alone let 40 of them take 4.35 GB of
// memory (issue 24); all of NVIDIA's manifests together are under 3 MB.
const DefaultMaxTotal = 512 << 20

// Budget bounds the bytes of manifests one run reads, across the loads of
// its sources. It is safe for concurrent use.
type Budget struct {
	max  int64
	how  string
	used atomic.Int64
}

// NewBudget returns a budget of max bytes (DefaultMaxTotal when max <= 0).
// how says how the caller's users raise it ("--max-manifest-bytes"), for
// the message; "" names no way.
func NewBudget(max int64, how string) *Budget {
	if max <= 0 {
		max = DefaultMaxTotal
	}
	return &Budget{max: max, how: how}
}

// Max is the budget's limit in bytes.
func (b *Budget) Max() int64 { return b.max }

// Used is how many bytes have been counted.
func (b *Budget) Used() int64 { return b.used.Load() }

// BudgetError is a manifest whose bytes would take a run past its Budget.
type BudgetError struct {
	File             string
	Size, Total, Max int64
	How              string
}

func (e *BudgetError) Error() string {
	msg := fmt.Sprintf("%s: its %s bring the manifests read in this run to %s, over the %s limit for all manifests together: refused",
		e.File, inputfile.Size(e.Size), inputfile.Size(e.Total), inputfile.Size(e.Max))
	if e.How != "" {
		msg += " (raise it with " + e.How + ")"
	}
	return msg
}

// take counts n bytes of file; nil b counts nothing.
func (b *Budget) take(file string, n int64) error {
	if b == nil {
		return nil
	}
	// Bytes over the limit are counted too: the run stops, and a file
	// read at the same time is refused as well rather than let through.
	if total := b.used.Add(n); total > b.max {
		return &BudgetError{File: file, Size: n, Total: total, Max: b.max, How: b.how}
	}
	return nil
}

// CheckError is a manifest refused by LoadOptions.Check.
type CheckError struct{ Err error }

func (e *CheckError) Error() string { return e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

// Load is LoadDir with a context, which ends the reads, and options.
func Load(ctx context.Context, dir string, opts LoadOptions) (*Collection, error) {
	return load(ctx, tree{root: dir}, opts)
}

func load(ctx context.Context, t tree, opts LoadOptions) (*Collection, error) {
	entries, err := t.readDir()
	if err != nil {
		return nil, fmt.Errorf("reading manifests folder: %w", err)
	}
	var jobs []job
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, err := t.readDir(e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading manifests folder: %w", err)
		}
		for _, f := range files {
			if rel, ok := ReleaseFromFileName(f.Name()); ok && !f.IsDir() {
				jobs = append(jobs, job{t.name(e.Name(), f.Name()), e.Name(), rel, t, []string{e.Name(), f.Name()}})
			}
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: %w: expected <product>/redistrib_<version>.json files, such as cuda/redistrib_12.4.1.json", t.root, ErrNoManifests)
	}
	ms, errs := parseEach(ctx, jobs, opts.Check, opts.Budget)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading manifests: %w", context.Cause(ctx))
	}
	var checks []error
	for _, err := range errs {
		var ce *CheckError
		var be *BudgetError
		switch {
		case errors.As(err, &be):
			return nil, err
		case errors.As(err, &ce):
			checks = append(checks, ce.Err)
		}
	}
	if len(checks) > 0 {
		return nil, errors.Join(checks...)
	}
	var good []*Manifest
	var refused []Refused
	for i, m := range ms {
		if errs[i] != nil {
			refused = append(refused, Refused{File: jobs[i].file, Product: jobs[i].product, Release: jobs[i].release, Err: errs[i]})
			continue
		}
		good = append(good, m)
	}
	if len(good) == 0 {
		return nil, firstError(errs)
	}
	c, err := NewCollection(good)
	if err != nil {
		return nil, err
	}
	c.refused = refused
	return c, nil
}

type job struct {
	file, product, release string
	tree                   tree
	elem                   []string // the file inside tree
}

// LoadProductContext reads every redistrib_<version>.json directly in dir
// as manifests of one product: a user's own product kept in its own
// folder. ctx ends the reading; budget, when not nil, counts the bytes.
func LoadProductContext(ctx context.Context, dir, product string, budget *Budget) ([]*Manifest, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading %s manifests: %w", product, err)
	}
	var jobs []job
	for _, f := range files {
		if rel, ok := ReleaseFromFileName(f.Name()); ok && !f.IsDir() {
			jobs = append(jobs, job{file: filepath.Join(dir, f.Name()), product: product, release: rel, tree: tree{root: dir}, elem: []string{f.Name()}})
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no %s manifests found: expected redistrib_<version>.json files", dir, product)
	}
	return parseAll(ctx, jobs, budget)
}

// parseAll reads and parses manifests in parallel, in file order; the first
// error in that order wins. A user's own product is all or nothing: its
// folder is theirs to fix.
func parseAll(ctx context.Context, jobs []job, budget *Budget) ([]*Manifest, error) {
	out, errs := parseEach(ctx, jobs, nil, budget)
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// parseEach reads and parses manifests in parallel, sorting jobs into file
// order; out and errs are parallel to the sorted jobs.
func parseEach(ctx context.Context, jobs []job, check func(string, string, []byte) error, budget *Budget) (out []*Manifest, errs []error) {
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].file < jobs[j].file })
	out = make([]*Manifest, len(jobs))
	errs = make([]error, len(jobs))
	var g errgroup.Group
	g.SetLimit(8)
	for i, j := range jobs {
		g.Go(func() error {
			data, err := j.tree.readFile(ctx, j.elem...)
			if err != nil {
				errs[i] = err
				return nil
			}
			if err := budget.take(j.file, int64(len(data))); err != nil {
				errs[i] = err
				return nil
			}
			if check != nil {
				if err := check(j.file, j.product+"/"+filepath.Base(j.file), data); err != nil {
					errs[i] = &CheckError{err}
					return nil
				}
			}
			out[i], errs[i] = Parse(j.file, j.product, j.release, data)
			return nil
		})
	}
	_ = g.Wait()
	return out, errs
}

// firstError returns the first non-nil error, noting how many more there were.
func firstError(errs []error) error {
	var first error
	n := 0
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		n++
	}
	if n > 1 {
		return &moreErrors{first: first, more: n - 1}
	}
	return first
}

type moreErrors struct {
	first error
	more  int
}

func (e *moreErrors) Error() string {
	s := "s"
	if e.more == 1 {
		s = ""
	}
	return fmt.Sprintf("%v (and %d more manifest%s refused)", e.first, e.more, s)
}

func (e *moreErrors) Unwrap() error { return e.first }

// IsManifestError reports whether err is (or wraps) a manifest Error.
func IsManifestError(err error) bool {
	var me *Error
	return errors.As(err, &me)
}

// Keep returns a collection of c's manifests for which keep holds (a
// product's manifests of the source the user picked), keeping c's
// refusals and origins.
func (c *Collection) Keep(keep func(*Manifest) bool) *Collection {
	out := &Collection{byProduct: map[string][]*Manifest{}, refused: c.refused, origin: c.origin}
	for p, ms := range c.byProduct {
		for _, m := range ms {
			if keep(m) {
				out.byProduct[p] = append(out.byProduct[p], m)
			}
		}
	}
	return out
}
