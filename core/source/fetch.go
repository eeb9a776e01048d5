package source

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/renameio/v2/maybe"
	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// MaxParallel is how many downloads (or folder listings) run at once.
const MaxParallel = 4

// Options configure Fetch. A zero field means its default.
type Options struct {
	Sources Sources
	// Products to fetch; at least one.
	Products []string
	// Releases maps a product to the releases to fetch. A product with no
	// releases here has its folder listing read, and every release it links
	// to is fetched. Every key must be one of Products.
	Releases map[string][]string
	// CacheDir is where manifests are stored; "" means DefaultCacheDir().
	CacheDir string
	// LockFile is the lock file's path; "" means no lock file at all.
	LockFile string
	// Update accepts downloads that do not match the lock file and replaces
	// their entries. Without it they are refused.
	Update bool
	// Known, when set, pins manifests the lock file may not list (the
	// snapshot's manifests.lock): a cached manifest that the lock file does
	// not list and whose bytes differ from Known's pin is downloaded again,
	// never locked as it is, so that fetching does not pin an edited cache
	// file. Downloads are not held to it: NVIDIA may publish new bytes.
	Known *Lock

	// Client sends the requests; nil means a client like http.DefaultClient
	// whose redirect policy names a loop as such (never retried).
	Client Doer
	// Timeout bounds one try of one URL (DefaultTimeout).
	Timeout time.Duration
	// StallTimeout bounds the wait for the next byte of a try, headers or
	// body (DefaultStallTimeout, and never more than Timeout).
	StallTimeout time.Duration
	// Attempts is how many times one URL is tried (DefaultAttempts); 1 means
	// no retries. Only network errors, timeouts, 5xx and 429 are retried.
	Attempts int
	// RetryDelay is the wait before the second try; it doubles for each
	// further try up to MaxRetryDelay (DefaultRetryDelay, DefaultMaxRetryDelay).
	RetryDelay, MaxRetryDelay time.Duration

	// Progress receives events; nil means none.
	Progress Progress

	// Wheels are, per product, the Python package index projects its
	// manifests are made from (pyindex.Build) instead of downloaded.
	Wheels map[string][]pyindex.Project
	// IndexURL is the index's PEP 691 base URL; "" means
	// pyindex.DefaultIndexURL (PyPI).
	IndexURL string
}

// Result is what a successful Fetch delivered.
type Result struct {
	CacheDir string
	// Manifests sorted by product, then release.
	Manifests []Item
	// Lock is the lock after the fetch (nil without a LockFile).
	Lock *Lock
	// LockWritten reports whether the lock file was (re)written.
	LockWritten bool
	// Added and Replaced are the lock keys this fetch added or replaced
	// (Replaced only with Update).
	Added, Replaced []string
	// Refused are manifests found through a folder listing that did not
	// parse: they are neither cached nor locked, and the rest is. A release
	// asked for by name that does not parse fails the fetch instead.
	Refused []error
}

// Item is one manifest now in the cache.
type Item struct {
	Key              string // "cuda/redistrib_12.4.1.json"
	Product, Release string
	Path             string // in the cache
	URL              string // "" when it came from the cache
	LockEntry
}

// FromCache reports whether the manifest was already cached.
func (f Item) FromCache() bool { return f.URL == "" }

// MismatchError is a download whose sha256 differs from the lock file's.
type MismatchError struct {
	File     string // the key, "cuda/redistrib_12.4.1.json"
	URL      string
	LockFile string
	Expected string
	Actual   string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s from %s: sha256 mismatch: %s expects %s, got %s (refused; not cached)", e.File, e.URL, e.LockFile, e.Expected, e.Actual)
}

// Fetch makes sure the cache holds the requested manifests, each parsed and
// (when a lock file is given) matching it, downloading what is missing or
// stale. It holds the cache lock throughout. The lock file is updated with
// new entries only when every manifest was delivered.
func Fetch(ctx context.Context, opts Options) (*Result, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	unlock, err := LockCache(ctx, f.cache, func(p string) { f.progress.Report(Event{Kind: Waiting, File: p}) })
	if err != nil {
		return nil, err
	}
	defer func() { _ = unlock() }()

	f.lock = NewLock(opts.LockFile)
	if opts.LockFile != "" {
		if f.lock, err = ReadLockContext(ctx, opts.LockFile); err != nil {
			return nil, err
		}
	}
	jobs, err := f.plan(ctx)
	if err != nil {
		return nil, err
	}

	f.progress.Start(len(jobs))
	got := make([]Item, len(jobs))
	errs := make([]error, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(MaxParallel)
	for i, j := range jobs {
		g.Go(func() error {
			got[i], errs[i] = f.one(gctx, j)
			return nil
		})
	}
	_ = g.Wait()
	f.progress.Finish()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fetching manifests: %w", context.Cause(ctx))
	}
	res := &Result{CacheDir: f.cache}
	var fatal []error
	for i, err := range errs {
		switch {
		case err == nil:
			res.Manifests = append(res.Manifests, got[i])
		case !jobs[i].named && !f.locked(jobs[i]) && onlyRefusals(err):
			// NVIDIA's listing holds a file this cudapkgs cannot use: the
			// others are still delivered and locked. A mismatch with the
			// lock, an outage or a locked manifest stays fatal.
			res.Refused = append(res.Refused, err)
		default:
			fatal = append(fatal, err)
		}
	}
	if err := errors.Join(fatal...); err != nil {
		return nil, err
	}
	if opts.LockFile == "" {
		return res, nil
	}
	entries := map[string]LockEntry{}
	for _, m := range res.Manifests {
		old, ok := f.lock.Manifests[m.Key]
		switch {
		case !ok:
			res.Added = append(res.Added, m.Key)
		case old != m.LockEntry:
			res.Replaced = append(res.Replaced, m.Key)
		default:
			continue
		}
		entries[m.Key] = m.LockEntry
	}
	// Another run may have written the lock file since it was read: merge
	// under its file lock rather than overwrite.
	if res.Lock, res.LockWritten, err = Merge(ctx, opts.LockFile, entries, f.update); err != nil {
		return nil, err
	}
	return res, nil
}

type fetcher struct {
	sources  Sources
	products []string
	releases map[string][]string
	cache    string
	update   bool
	lock     *Lock
	known    *Lock
	dl       *downloader
	progress Progress

	wheels   map[string][]pyindex.Project
	index    string
	client   Doer
	made     map[string][]byte // lock key -> a manifest made from wheels
	madeFrom map[string]string // lock key -> the index pages it was made from
}

// onlyRefusals reports whether every source answered for the manifest and
// every answer was refused by the parser: the file itself is what cannot be
// used, not the network or the lock.
func onlyRefusals(err error) bool {
	var fe *FetchError
	if !errors.As(err, &fe) {
		return manifest.IsManifestError(err)
	}
	if len(fe.Attempts) == 0 {
		return false
	}
	for _, a := range fe.Attempts {
		if !manifest.IsManifestError(a.Err) {
			return false
		}
		var mm *MismatchError
		if errors.As(a.Err, &mm) {
			return false
		}
	}
	return true
}

// locked reports whether the lock file has an entry for the job's manifest.
func (f *fetcher) locked(j job) bool {
	_, ok := f.lock.Manifests[Key(j.product, j.release)]
	return ok
}

type job struct {
	product, release string
	named            bool // asked for by name, not found in a folder listing
}

func newFetcher(o Options) (*fetcher, error) {
	if err := o.Sources.Validate(); err != nil {
		return nil, err
	}
	f := &fetcher{sources: o.Sources, cache: o.CacheDir, update: o.Update, known: o.Known, progress: o.Progress, releases: map[string][]string{},
		wheels: o.Wheels, index: o.IndexURL, client: o.Client, made: map[string][]byte{}, madeFrom: map[string]string{}}
	if f.index == "" {
		f.index = pyindex.DefaultIndexURL
	}
	if len(f.wheels) > 0 {
		if err := pyindex.CheckIndexURL(f.index); err != nil {
			return nil, err
		}
	}
	if f.progress == nil {
		f.progress = nopProgress{}
	}
	f.products = o.Products
	if len(f.products) == 0 {
		return nil, fmt.Errorf("no products to fetch")
	}
	seen := map[string]bool{}
	for _, p := range f.products {
		if seen[p] {
			return nil, fmt.Errorf("product %s named twice", p)
		}
		seen[p] = true
		if len(o.Wheels[p]) > 0 {
			if err := CheckProduct(p); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := o.Sources.Folders(p); err != nil {
			return nil, err
		}
	}
	for _, p := range slices.Sorted(maps.Keys(o.Releases)) {
		if !seen[p] {
			return nil, fmt.Errorf("releases given for %s, which is not among the products to fetch (%v)", p, f.products)
		}
		for _, r := range o.Releases[p] {
			if _, err := version.Parse(r); err != nil {
				return nil, fmt.Errorf("%s release: %w", p, err)
			}
		}
		f.releases[p] = o.Releases[p]
	}
	if f.cache == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		f.cache = d
	}
	d := &downloader{
		client:   o.Client,
		timeout:  o.Timeout,
		stall:    o.StallTimeout,
		attempts: o.Attempts,
		delay:    o.RetryDelay,
		maxDel:   o.MaxRetryDelay,
		progress: f.progress,
	}
	if d.client == nil {
		d.client = defaultClient
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if d.stall <= 0 {
		d.stall = DefaultStallTimeout
	}
	d.stall = min(d.stall, d.timeout)
	if d.attempts <= 0 {
		d.attempts = DefaultAttempts
	}
	if d.delay <= 0 {
		d.delay = DefaultRetryDelay
	}
	if d.maxDel <= 0 {
		d.maxDel = max(DefaultMaxRetryDelay, d.delay)
	}
	f.dl = d
	return f, nil
}

// plan lists the manifests to deliver, reading folder listings for products
// without releases (in parallel).
func (f *fetcher) plan(ctx context.Context) ([]job, error) {
	found := make([][]string, len(f.products))
	named := make([]bool, len(f.products))
	errs := make([]error, len(f.products))
	var g errgroup.Group
	g.SetLimit(MaxParallel)
	for i, p := range f.products {
		if len(f.wheels[p]) > 0 {
			// Made from the index's pages, read once here.
			g.Go(func() error {
				found[i], named[i], errs[i] = f.fromWheels(ctx, p)
				return nil
			})
			continue
		}
		if rs, ok := f.releases[p]; ok && len(rs) > 0 {
			found[i] = rs
			named[i] = true
			continue
		}
		g.Go(func() error {
			found[i], errs[i] = f.discover(ctx, p)
			return nil
		})
	}
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var jobs []job
	seen := map[string]bool{}
	for i, p := range f.products {
		rs := slices.Clone(found[i])
		sort.SliceStable(rs, func(a, b int) bool { return version.MustParse(rs[a]).Less(version.MustParse(rs[b])) })
		for _, r := range rs {
			if k := Key(p, r); !seen[k] {
				seen[k] = true
				jobs = append(jobs, job{p, r, named[i]})
			}
		}
	}
	return jobs, nil
}

// discover reads the product's folder listing at every source (the
// mirrors, then NVIDIA's) and merges them: a partial mirror lists only what
// it holds, and the releases it lacks come from the next source (one tries
// the same sources in the same order). A listing that fails is reported
// and left out; only when every source fails is there no list.
func (f *fetcher) discover(ctx context.Context, product string) ([]string, error) {
	folders, err := f.sources.Folders(product)
	if err != nil {
		return nil, err
	}
	var rels []string
	var errs []error
	for _, folder := range folders {
		var got []string
		u, _, err := f.dl.get(ctx, product+" release list", []string{folder}, func(_ context.Context, u string, body []byte) error {
			got = ParseIndex(body)
			if len(got) == 0 {
				return errEmptyIndex(u)
			}
			return nil
		})
		if ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.progress.Report(Event{Kind: Listed, Product: product, Count: len(got), URL: u})
		for _, r := range got {
			if !slices.Contains(rels, r) {
				rels = append(rels, r)
			}
		}
	}
	if len(rels) == 0 {
		return nil, errors.Join(errs...)
	}
	for _, err := range errs {
		f.progress.Report(Event{Kind: Unlisted, Product: product, Err: err})
	}
	return rels, nil
}

// one delivers one manifest: from the cache when it is there, parses and
// matches the lock, otherwise downloaded, checked and then cached.
func (f *fetcher) one(ctx context.Context, j job) (Item, error) {
	key := Key(j.product, j.release)
	out := Item{Key: key, Product: j.product, Release: j.release,
		Path: filepath.Join(f.cache, j.product, manifest.FileName(j.release))}
	want, locked := f.lock.Manifests[key]
	trusted := func(e LockEntry) bool {
		if locked {
			return e == want
		}
		if f.known != nil {
			if k, ok := f.known.Manifests[key]; ok {
				return e == k
			}
		}
		return true
	}

	if data, err := inputfile.Read(ctx, out.Path, inputfile.Manifest); err == nil {
		e := EntryFor(data)
		if trusted(e) {
			// A cached file is parsed within a try's time limit too.
			pctx, cancel := context.WithTimeoutCause(ctx, f.dl.timeout, fmt.Errorf("timed out after %v", f.dl.timeout))
			_, err := manifest.ParseContext(pctx, out.Path, j.product, j.release, data)
			cancel()
			var stopped *manifest.StoppedError
			switch {
			case err == nil:
				out.LockEntry = e
				f.progress.Report(Event{Kind: Cached, File: key, Product: j.product, Size: e.Size})
				return out, nil
			case errors.As(err, &stopped) && ctx.Err() == nil:
				// Its download would take as long to check.
				return out, fmt.Errorf("cached manifest %s (%d bytes): %w", out.Path, len(data), err)
			}
		}
		// Stale (the lock, or Known, says otherwise) or broken: download
		// it again.
	}

	check := func(ctx context.Context, u string, body []byte) error {
		if _, err := manifest.ParseContext(ctx, u, j.product, j.release, body); err != nil {
			return fmt.Errorf("%w (refused; not cached)", err)
		}
		if e := EntryFor(body); locked && e != want && !f.update {
			return &MismatchError{File: key, URL: u, LockFile: f.lock.Path, Expected: want.SHA256, Actual: e.SHA256}
		}
		return nil
	}
	var u string
	var body []byte
	if made, ok := f.made[key]; ok {
		u, body = f.madeFrom[key], made
		if err := check(ctx, u, body); err != nil {
			return out, err
		}
	} else {
		urls, err := f.sources.ManifestURLs(j.product, j.release)
		if err != nil {
			return out, err
		}
		if u, body, err = f.dl.get(ctx, key, urls, check); err != nil {
			return out, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(out.Path), 0o755); err != nil {
		return out, fmt.Errorf("caching %s: %w", key, err)
	}
	if err := maybe.WriteFile(out.Path, body, 0o644); err != nil {
		return out, fmt.Errorf("caching %s: %w", key, err)
	}
	out.URL, out.LockEntry = u, EntryFor(body)
	f.progress.Report(Event{Kind: Fetched, File: key, Product: j.product, URL: u, Size: out.Size})
	return out, nil
}

// fromWheels reads the product's projects on the index and makes its
// manifests, keeping them for one to deliver. It returns the releases to
// deliver: those asked for (each must have been made), or every one.
func (f *fetcher) fromWheels(ctx context.Context, product string) (releases []string, named bool, err error) {
	client := pyindex.Client{Index: f.index, HTTP: f.client}
	if f.client == nil {
		client.HTTP = defaultClient
	}
	pages := map[string]*pyindex.Page{}
	var from []string
	for _, p := range f.wheels[product] {
		pg, err := client.Project(ctx, p.Name)
		if err != nil {
			return nil, false, fmt.Errorf("%s wheels: %w", product, err)
		}
		pages[p.Name] = pg
		from = append(from, pg.URL)
	}
	made, skipped, err := pyindex.Build(product, f.index, f.wheels[product], pages)
	if err != nil {
		return nil, false, err
	}
	for _, s := range skipped {
		f.progress.Report(Event{Kind: Unlisted, Product: product, Err: fmt.Errorf("%s: %s left out: %s", s.Project, s.File, s.Why)})
	}
	if len(made) == 0 {
		return nil, false, fmt.Errorf("%s wheels: %s list no wheel for linux-x86_64, linux-sbsa or windows-x86_64", product, strings.Join(from, ", "))
	}
	have := map[string]bool{}
	for _, m := range made {
		k := Key(product, m.Release)
		f.made[k], f.madeFrom[k] = m.Data, strings.Join(from, " + ")
		have[m.Release] = true
		releases = append(releases, m.Release)
	}
	f.progress.Report(Event{Kind: Listed, Product: product, Count: len(made), URL: strings.Join(from, " + ")})
	if want := f.releases[product]; len(want) > 0 {
		for _, r := range want {
			if !have[r] {
				return nil, false, fmt.Errorf("%s %s: no wheel of that release on %s (releases: %s)", product, r, strings.Join(from, ", "), strings.Join(releases, ", "))
			}
		}
		return want, true, nil
	}
	return releases, false, nil
}
