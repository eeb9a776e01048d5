package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

func (a *app) manifestsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "manifests",
		Short: "Download NVIDIA's manifests into the cache, pinned by cudapkgs.lock, and verify them",
		Long: `manifests fetches NVIDIA's redistrib_<version>.json manifests into a cache folder laid out
like any manifests folder (<cache>/<product>/redistrib_<version>.json), so the cache can be
given to --manifests. cudapkgs.lock pins each manifest's sha256: a download that does not
match is refused and never cached. Without --manifests, the other commands merge the cache
over the snapshot of NVIDIA's manifests built into cudapkgs, the cache winning.`,
		Example: `  cudapkgs manifests fetch --release cuda=12.4.1
  cudapkgs manifests verify`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return usagef("manifests needs a command: fetch or verify (see cudapkgs manifests --help)")
		},
	}
	cmd.AddCommand(a.fetchCmd(), a.verifyCmd())
	return cmd
}

type fetchFlags struct {
	products, releases   []string
	mirrors, productURLs []string
	base, cache, lock    string
	indexURL             string
	sources              []string
	updateLock           bool
	timeout              time.Duration
	retries              int
	// Where the configuration is, for the plugins it declares: their
	// products are fetched by the layouts they describe, as a run reads
	// them.
	config, workspace string
	pluginTimeout     time.Duration
}

func (a *app) fetchCmd() *cobra.Command {
	var f fetchFlags
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Download manifests into the cache and pin them in cudapkgs.lock",
		Long: `fetch downloads NVIDIA's manifests into the cache, checks each against cudapkgs.lock and
adds new ones to it. Manifests already cached (and matching the lock) are not downloaded again.

URLs: <base>/compute/<product>/redist/redistrib_<version>.json, trying every --mirror (same
layout, in the order given) before --base. --product-url gives a product its own folder
instead; TensorRT has no NVIDIA manifests and needs one.

Releases: --release cuda=12.4.1 (repeatable, or comma-separated); a plain version when one
--product is given. A product without releases has its folder listing read and every release
it links to is fetched. Without --product, the products named by --release are fetched, or
else cuda, cudnn, cutensor and every product with a --product-url.

Products and their layouts come from the plugins, as in a run: the built-ins and those the
configuration declares (plugin() in cudapkgs.star), so a third party's product is fetched by
the layout its plugin describes.

A download that does not parse, or whose sha256 differs from the lock, is refused and never
cached; --update-lock accepts new bytes and replaces their entries. The lock file is written
only when every manifest was delivered. Network errors, timeouts, HTTP 5xx and 429 are
retried with exponential backoff; 404 moves on to the next URL at once.`,
		Example: `  cudapkgs manifests fetch --release cuda=12.4.1 --release cudnn=9.12.0
  cudapkgs manifests fetch --product cuda --release 12.4.1,12.6.3 --mirror https://mirror.example/nvidia
  cudapkgs manifests fetch --product tensorrt --product-url tensorrt=https://example.com/trt/`,
		Args: cobra.NoArgs,
	}
	f.bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.fetch(cmd, &f)
	}
	return cmd
}

func (f *fetchFlags) bind(fl *pflag.FlagSet) {
	fl.StringSliceVar(&f.products, "product", nil, "product to fetch (repeatable or comma-separated; default: those named by --release, else cuda,cudnn,cutensor and every --product-url product)")
	fl.StringArrayVar(&f.releases, "release", nil, "release to fetch: product=version such as cuda=12.4.1, or a plain version with one --product (repeatable or comma-separated; a plain version after product=version in one list is that product's: cuda=12.9.1,13.0.0; default: every release the product's folder lists)")
	fl.StringArrayVar(&f.mirrors, "mirror", nil, "base URL laid out like NVIDIA's server, tried before --base (repeatable, or comma-separated where each starts with https://, http:// or file://; tried in the order given)")
	fl.StringVar(&f.base, "base", source.DefaultBase, "NVIDIA's server, tried after the mirrors")
	fl.StringArrayVar(&f.productURLs, "product-url", nil, "product=URL: the folder holding that product's redistrib_<version>.json files, replacing the layout (repeatable, or comma-separated where each is product=URL; required for tensorrt)")
	fl.StringSliceVar(&f.sources, "source", nil, "where a product offered both ways comes from: PRODUCT=wheels (the index of --index-url) or PRODUCT=nvidia (the default where NVIDIA publishes manifests); as generate's --source")
	fl.StringVar(&f.indexURL, "index-url", "", "Python package index (PEP 691 JSON API) that wheel products (nccl, nvshmem, cufftmp) are read from, as pip's --index-url (default: $PIP_INDEX_URL, else "+pyindex.DefaultIndexURL+")")
	fl.StringVar(&f.cache, "cache", "", "cache folder (default: <user cache>/cudapkgs/manifests)")
	fl.StringVar(&f.lock, "lock", source.LockFileName, "lock file pinning each manifest's sha256")
	fl.BoolVar(&f.updateLock, "update-lock", false, "accept downloads that differ from the lock file and replace their entries")
	fl.DurationVar(&f.timeout, "timeout", source.DefaultTimeout, "limit for one try of one URL, its download and the parse of what arrived (a try also ends after 30s without data)")
	fl.IntVar(&f.retries, "retries", source.DefaultAttempts-1, "retries per URL after the first try")
	fl.StringVar(&f.config, "config", "", "Starlark configuration file whose plugin() declarations add products and their layouts, as in a run (default: cudapkgs.star at the workspace root, when there is one)")
	fl.StringVar(&f.workspace, "workspace", "", "workspace root for the default configuration (default: the nearest folder up from here with MODULE.bazel, WORKSPACE, WORKSPACE.bazel or cudapkgs.star, else here)")
	fl.DurationVar(&f.pluginTimeout, "plugin-timeout", 30*time.Second, "deadline of each plugin's start and Describe call")
}

// described takes the built-in plugins' descriptions in process (no
// process started), starts those the configuration declares, and returns
// the products they describe: the same products, with the same layouts, as
// a run reads.
func (f *fetchFlags) described(ctx context.Context) (fixup.Products, error) {
	if f.pluginTimeout <= 0 {
		return fixup.Products{}, usagef("--plugin-timeout %v: expected a positive duration such as 30s", f.pluginTimeout)
	}
	root, err := (&configFlags{workspace: f.workspace}).workspaceRoot()
	if err != nil {
		return fixup.Products{}, err
	}
	builtins, err := cudapkgs.BuiltinSpecs()
	if err != nil {
		return fixup.Products{}, err
	}
	ps, err := cudapkgs.Products(ctx, cudapkgs.Inputs{Workspace: root, ConfigFile: f.config, Builtins: builtins, PluginTimeout: f.pluginTimeout})
	var ce *cudapkgs.ConfigError
	if errors.As(err, &ce) {
		return fixup.Products{}, usageError{ce.Err}
	}
	return ps, err
}

func (a *app) fetch(cmd *cobra.Command, f *fetchFlags) error {
	ps, err := f.described(cmd.Context())
	if err != nil {
		return err
	}
	opts, err := f.options(ps.List)
	if err != nil {
		return err
	}
	opts.Progress = source.NewProgress(a.stderr, a.isTerminal)
	res, err := source.Fetch(cmd.Context(), opts)
	if err != nil {
		var mm *source.MismatchError
		if errors.As(err, &mm) {
			return fmt.Errorf("%w\n(if the new bytes are expected, rerun with --update-lock to replace their lock entries)", err)
		}
		return err
	}
	for _, r := range res.Refused {
		fmt.Fprintf(a.stderr, "warning: %v; the other manifests are cached and locked\n", r)
	}
	fetched := 0
	for _, m := range res.Manifests {
		if !m.FromCache() {
			fetched++
		}
	}
	fmt.Fprintf(a.stdout, "%d manifests in %s (%d fetched, %d cached)\n", len(res.Manifests), res.CacheDir, fetched, len(res.Manifests)-fetched)
	if res.LockWritten {
		fmt.Fprintf(a.stdout, "%s: %d added, %d replaced\n", f.lock, len(res.Added), len(res.Replaced))
	} else {
		fmt.Fprintf(a.stdout, "%s: unchanged\n", f.lock)
	}
	return nil
}

// options turns the flags into source.Options; every problem is a usage error.
func (f *fetchFlags) options(products []pkgset.Product) (source.Options, error) {
	o := source.Options{
		Sources:  source.Sources{Mirrors: splitList(f.mirrors, beforeURL), ProductURLs: map[string]string{}},
		CacheDir: f.cache,
		LockFile: f.lock,
		Update:   f.updateLock,
		Timeout:  f.timeout,
		Attempts: f.retries + 1,
		Releases: map[string][]string{},
	}
	// A cached release the lock does not list is locked as it is only when
	// it has the snapshot's bytes; an edited one is downloaded again.
	known, err := snapshot.Lock()
	if err != nil {
		return o, fmt.Errorf("the snapshot built into cudapkgs: %w", err)
	}
	o.Known = known
	if f.timeout <= 0 {
		return o, usagef("--timeout %v: expected a positive duration such as 30s", f.timeout)
	}
	if f.retries < 0 {
		return o, usagef("--retries %d: expected 0 or more", f.retries)
	}
	if f.lock == "" {
		return o, usagef("--lock: expected a file name")
	}
	if f.base == "" {
		return o, usagef("--base: expected a URL such as %s", source.DefaultBase)
	}
	// Each product's own base is its plugin's; --base replaces them all
	// (a test server, a proxy) only when it says something else.
	if f.base != source.DefaultBase {
		o.Sources.Base = f.base
	}
	o.Sources.Layouts, o.Sources.Unlisted = layouts(products)
	picked, err := config.ParseSources(f.sources, pkgset.Sources(products))
	if err != nil {
		return o, usagef("--source %v", strings.TrimPrefix(err.Error(), "option sources: "))
	}
	o.Wheels = map[string][]pyindex.Project{}
	for _, p := range products {
		if wheelOnly(p) || picked[p.Name] == config.SourceWheels {
			o.Wheels[p.Name] = p.Wheels
		}
	}
	// As pip: the flag, else PIP_INDEX_URL, else PyPI.
	o.IndexURL = f.indexURL
	if o.IndexURL == "" {
		o.IndexURL = os.Getenv("PIP_INDEX_URL")
	}
	if o.IndexURL == "" {
		o.IndexURL = pyindex.DefaultIndexURL
	}
	if err := pyindex.CheckIndexURL(o.IndexURL); err != nil {
		from := "--index-url"
		if f.indexURL == "" {
			from = "PIP_INDEX_URL"
		}
		return o, usagef("%s: %v", from, err)
	}
	for _, pu := range splitList(f.productURLs, beforeProductURL) {
		p, u, ok := strings.Cut(pu, "=")
		if !ok {
			return o, usagef("--product-url %q: expected product=URL, such as tensorrt=https://example.com/trt/", pu)
		}
		if err := source.CheckProduct(p); err != nil {
			return o, usagef("--product-url %q: %v", pu, err)
		}
		if _, dup := o.Sources.ProductURLs[p]; dup {
			return o, usagef("--product-url: %s given twice", p)
		}
		o.Sources.ProductURLs[p] = u
	}
	if err := o.Sources.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	if f.cache == "" {
		d, err := source.DefaultCacheDir()
		if err != nil {
			return o, usagef("--cache is required: %v", err)
		}
		o.CacheDir = d
	}

	for _, p := range f.products {
		if err := source.CheckProduct(p); err != nil {
			return o, usagef("--product: %v", err)
		}
		if slices.Contains(o.Products, p) {
			return o, usagef("--product %s given twice", p)
		}
		o.Products = append(o.Products, p)
	}
	var named []string // products named by --release, in order
	for _, r := range releaseList(f.releases) {
		p, v, ok := strings.Cut(r, "=")
		if !ok {
			if len(f.products) != 1 {
				return o, usagef("--release %q: say which product it is (--release cuda=%s), or give exactly one --product", r, r)
			}
			p, v = f.products[0], r
		}
		if err := source.CheckProduct(p); err != nil {
			return o, usagef("--release %q: %v", r, err)
		}
		if _, err := version.Parse(v); err != nil {
			return o, usagef("--release %q: %v", r, err)
		}
		if len(f.products) > 0 && !slices.Contains(f.products, p) {
			return o, usagef("--release %q: %s is not among --product %s", r, p, strings.Join(f.products, ","))
		}
		if !slices.Contains(o.Releases[p], v) {
			o.Releases[p] = append(o.Releases[p], v)
		}
		if !slices.Contains(named, p) {
			named = append(named, p)
		}
	}
	if len(f.products) == 0 && len(named) > 0 {
		o.Products = named
	}
	if o.Products == nil {
		o.Products = fetchedByDefault(products, o.Sources)
	}
	for _, p := range o.Products {
		if len(o.Wheels[p]) > 0 {
			continue
		}
		if _, err := o.Sources.Folders(p); err != nil {
			var np *source.NoProductURLError
			if errors.As(err, &np) {
				return o, usagef("%s: NVIDIA publishes no redistrib manifests for %s; give the folder holding its redistrib_<version>.json files with --product-url %s=URL", p, p, p)
			}
			return o, usagef("%v", err)
		}
	}
	return o, nil
}

func (a *app) verifyCmd() *cobra.Command {
	var dir, lockFile string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check a manifests folder (by default the cache) against cudapkgs.lock",
		Long: `verify checks that every manifest cudapkgs.lock lists is in the folder with the sha256 and
size the lock gives, and that every <product>/redistrib_<version>.json in the folder is in the
lock. Every problem is reported, one per line, and the command fails if there is any.`,
		Example: `  cudapkgs manifests verify
  cudapkgs manifests verify --manifests third_party/manifests --lock cudapkgs.lock`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&dir, "manifests", "", "folder of manifests laid out as <product>/redistrib_<version>.json (default: the cache)")
	cmd.Flags().StringVar(&lockFile, "lock", source.LockFileName, "lock file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if lockFile == "" {
			return usagef("--lock: expected a file name")
		}
		if dir == "" {
			d, err := source.DefaultCacheDir()
			if err != nil {
				return usagef("--manifests is required: %v", err)
			}
			dir = d
		}
		if _, err := os.Stat(lockFile); err != nil {
			return fmt.Errorf("reading lock file: %w", err)
		}
		lock, err := source.ReadLockContext(cmd.Context(), lockFile)
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("%s: no manifests to verify (%w); %s", dir, err, threeWays)
		}
		n, err := source.VerifyContext(cmd.Context(), dir, lock)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%d manifests in %s match %s\n", n, dir, lockFile)
		return nil
	}
	return cmd
}

// fetchedByDefault: every product of the plugins that is published with
// manifests, plus every product given a --product-url.
func fetchedByDefault(products []pkgset.Product, s source.Sources) []string {
	var ps []string
	for _, p := range products {
		if !p.Unlisted {
			ps = append(ps, p.Name)
		}
	}
	var extra []string
	for p := range s.ProductURLs {
		if !slices.Contains(ps, p) {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	return append(ps, extra...)
}

// wheelOnly: a product whose manifests are made from its wheels, with no
// NVIDIA folder of its own.
func wheelOnly(p pkgset.Product) bool { return len(p.Wheels) > 0 && p.Base == "" }

// layouts say where the plugins publish their products' manifests, and
// which products have none.
func layouts(products []pkgset.Product) (map[string]source.Layout, []string) {
	layouts := map[string]source.Layout{}
	var unlisted []string
	for _, p := range products {
		if p.Unlisted {
			unlisted = append(unlisted, p.Name)
			continue
		}
		if wheelOnly(p) {
			continue
		}
		layouts[p.Name] = source.Layout{Base: p.Base, Path: p.Path}
	}
	return layouts, unlisted
}

// releaseList splits each --release value at its commas. A plain version
// after product=version in the same value is that product's, so
// "cuda=12.9.1,13.0.0" is cuda=12.9.1 and cuda=13.0.0; a plain version first
// in a value stays plain (it needs exactly one --product).
func releaseList(values []string) []string {
	var out []string
	for _, v := range values {
		product := ""
		for _, r := range strings.Split(v, ",") {
			r = strings.TrimSpace(r)
			if r == "" {
				continue
			}
			if p, _, ok := strings.Cut(r, "="); ok {
				product = p
			} else if product != "" {
				r = product + "=" + r
			}
			out = append(out, r)
		}
	}
	return out
}

// splitList splits each value at the commas where split(before, after)
// says one whole value ends and the next begins: a URL or a path may hold a
// comma of its own, which stays.
func splitList(values []string, split func(before, after string) bool) []string {
	var out []string
	for _, v := range values {
		parts := strings.Split(v, ",")
		cur := parts[0]
		for _, p := range parts[1:] {
			if split(strings.TrimSpace(cur), strings.TrimSpace(p)) {
				out = append(out, strings.TrimSpace(cur))
				cur = p
				continue
			}
			cur += "," + p
		}
		out = append(out, strings.TrimSpace(cur))
	}
	return out
}

// beforeURL splits a list of URLs where the next one starts.
func beforeURL(_, after string) bool { return isURL(after) }

// beforeProductURL splits a list of product=URL where the next one starts.
func beforeProductURL(_, after string) bool {
	p, u, ok := strings.Cut(after, "=")
	return ok && source.CheckProduct(p) == nil && isURL(u)
}

// isURL: s starts with a scheme mirrors may have.
func isURL(s string) bool {
	for _, scheme := range []string{"https://", "http://", "file://"} {
		if strings.HasPrefix(s, scheme) {
			return true
		}
	}
	return false
}
