package manifest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// Error is a manifest refused for a reason tied to one key.
type Error struct {
	File string
	Path string // JSON path of the bad key, e.g. $.libfoo["linux-x86_64"].sha256
	Line int    // 1-based; 0 when unknown
	Col  int
	Msg  string // what was found and what was expected
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// entryError is a defect confined to one package entry: the entry keeps its
// place as an unusable package with the message as its reason, and the rest
// of the manifest is used. Everything else refuses the whole file.
type entryError struct{ err *Error }

func (e entryError) Error() string { return e.err.Error() }
func (e entryError) Unwrap() error { return e.err }

// entry builds an entryError for the key at keys.
func (p *parser) entry(keys []string, format string, args ...any) error {
	return entryError{p.fail(keys, format, args...).(*Error)}
}

// warn records a tolerated oddity at keys.
func (p *parser) warn(keys []string, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{File: p.file, Path: jsonPath(keys), Msg: fmt.Sprintf(format, args...)})
}

const fileNamePrefix, fileNameSuffix = "redistrib_", ".json"

// FileName is the manifest file name NVIDIA uses for a release.
func FileName(release string) string { return fileNamePrefix + release + fileNameSuffix }

// ReleaseFromFileName returns the release of a redistrib_<version>.json name.
func ReleaseFromFileName(name string) (string, bool) {
	base := path.Base(name)
	if !strings.HasPrefix(base, fileNamePrefix) || !strings.HasSuffix(base, fileNameSuffix) {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(base, fileNamePrefix), fileNameSuffix), true
}

// Parse reads a manifest. file names it in messages; product and release are
// what its location says (folder and file name) and are checked against
// release_product and release_label when the manifest has them.
func Parse(file, product, release string, data []byte) (*Manifest, error) {
	return ParseContext(context.Background(), file, product, release, data)
}

// ParseContext is Parse that stops when ctx ends: between its passes over
// the text and between packages, so a run's time limit covers parsing too
// (issue 24: a fetch with --timeout 20s parsed for 90 s holding the cache
// lock). The error then wraps context.Cause(ctx) and is not a manifest
// error (IsManifestError is false): the bytes were not found wanting.
func ParseContext(ctx context.Context, file, product, release string, data []byte) (*Manifest, error) {
	p := parser{file: file, text: text{data: data}, ctx: ctx}
	m, err := p.parse(product, release)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	m.SHA256 = hex.EncodeToString(sum[:])
	return m, nil
}

type parser struct {
	text
	file     string
	warnings []Warning
	ctx      context.Context
}

// StoppedError is a parse that ctx ended before it finished.
type StoppedError struct {
	File  string
	Cause error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("%s: parsing stopped before the end: %v", e.File, e.Cause)
}

func (e *StoppedError) Unwrap() error { return e.Cause }

// stopped is a *StoppedError when the parse's context has ended.
func (p *parser) stopped() error {
	if p.ctx.Err() == nil {
		return nil
	}
	return &StoppedError{File: p.file, Cause: context.Cause(p.ctx)}
}

// fail builds an Error for the key at keys, locating it in the text.
func (p *parser) fail(keys []string, format string, args ...any) error {
	line, col := p.locate(keys)
	return &Error{File: p.file, Path: jsonPath(keys), Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse(product, release string) (*Manifest, error) {
	if p.ctx == nil {
		p.ctx = context.Background()
	}
	rel, err := version.Parse(release)
	if err != nil {
		return nil, &Error{File: p.file, Msg: fmt.Sprintf("release in file name: %v", err)}
	}
	// One decode into generic values, then a walk: decoding level by level
	// into json.RawMessage would re-scan every byte once per nesting level.
	if err := p.stopped(); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(ctxReader{p.ctx, bytes.NewReader(p.data)})
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if err := p.stopped(); err != nil {
			return nil, err
		}
		return nil, p.syntaxError(err)
	}
	if err := p.stopped(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := p.at(int(dec.InputOffset()))
		return nil, &Error{File: p.file, Line: line, Col: col, Msg: "invalid JSON: unexpected data after the top-level object"}
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, &Error{File: p.file, Path: "$", Line: 1, Col: 1, Msg: fmt.Sprintf("expected a JSON object at the top level, found %s", kind(doc))}
	}
	m := &Manifest{File: p.file, Product: product, Release: rel}
	// Duplicate keys and invalid UTF-8: confined to a package entry when
	// under one, else the file's.
	entryProblems := map[string]textProblem{}
	problems := scanText(&p.text)
	if err := p.stopped(); err != nil {
		return nil, err
	}
	for _, pr := range problems {
		if _, isPkg := top[pr.keys[0]].(map[string]any); isPkg && !isReleaseKey(pr.keys[0]) {
			if _, ok := entryProblems[pr.keys[0]]; !ok {
				entryProblems[pr.keys[0]] = pr
			}
			continue
		}
		line, col := p.at(pr.off)
		return nil, &Error{File: p.file, Path: jsonPath(pr.keys), Line: line, Col: col, Msg: pr.msg}
	}
	for i, k := range slices.Sorted(maps.Keys(top)) {
		if i%256 == 255 {
			if err := p.stopped(); err != nil {
				return nil, err
			}
		}
		raw := top[k]
		switch k {
		case "release_date":
			if m.Date, err = p.str(raw, []string{k}); err != nil {
				return nil, err
			}
		case "release_label":
			s, err := p.str(raw, []string{k})
			if err != nil {
				return nil, err
			}
			v, err := version.Parse(s)
			if err != nil {
				return nil, p.fail([]string{k}, "%v", err)
			}
			if !v.Equal(rel) {
				return nil, p.fail([]string{k}, "release_label %q does not match the file name's release %q", s, release)
			}
		case "release_product":
			s, err := p.str(raw, []string{k})
			if err != nil {
				return nil, err
			}
			if product != "" && s != product {
				return nil, p.fail([]string{k}, "release_product %q does not match the product %q this manifest was read as", s, product)
			}
		default:
			obj, ok := raw.(map[string]any)
			if !ok {
				// A new top-level field (NVIDIA adds them): packages are
				// objects, so this is not one.
				p.warn([]string{k}, "unknown top-level field ignored: expected a package object (or release_date, release_label, release_product), found %s", kind(raw))
				continue
			}
			if err := CheckPackageName(k); err != nil {
				// A name no build tool can use safely is not given a place:
				// dropped, with a warning.
				p.warn([]string{k}, "package %q dropped: %v", k, err)
				continue
			}
			var pkg Package
			var err error
			if pr, ok := entryProblems[k]; ok {
				line, col := p.at(pr.off)
				pkg, err = Package{Name: k}, entryError{&Error{File: p.file, Path: jsonPath(pr.keys), Line: line, Col: col, Msg: pr.msg}}
			} else {
				pkg, err = p.pkg(k, obj)
			}
			var ee entryError
			switch {
			case errors.As(err, &ee):
				pkg.Problems = append(pkg.Problems, ee.err.Path+": "+ee.err.Msg)
				pkg.Archives = nil
				p.warnings = append(p.warnings, Warning{File: p.file, Path: ee.err.Path,
					Msg: fmt.Sprintf("package %q cannot be used: %s", k, ee.err.Msg)})
			case err != nil:
				return nil, err
			}
			m.Packages = append(m.Packages, pkg)
		}
	}
	if len(m.Packages) == 0 {
		return nil, &Error{File: p.file, Path: "$", Msg: "manifest has no packages: expected at least one package object"}
	}
	m.Warnings = p.warnings
	return m, nil
}

// ctxReader ends a read when ctx has ended, and reads at most 1 MiB at a
// time: the decoder scans what it has read before it reads again, so its
// scan stops within a megabyte of the end of ctx.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b[:min(len(b), 1<<20)])
}

func isReleaseKey(k string) bool {
	return k == "release_date" || k == "release_label" || k == "release_product"
}

func (p *parser) syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := p.at(int(se.Offset))
		return &Error{File: p.file, Line: line, Col: col, Msg: "invalid JSON: " + se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := p.at(len(p.data))
		return &Error{File: p.file, Line: line, Col: col, Msg: "invalid JSON: unexpected end of JSON input"}
	}
	return &Error{File: p.file, Msg: "invalid JSON: " + err.Error()}
}

func (p *parser) pkg(name string, obj map[string]any) (Package, error) {
	pkg := Package{Name: name}
	// One path for all the fields: what receives it reads it or copies it
	// and keeps nothing, and a slice per field was an allocation per field
	// of every package on every load (issue 25).
	keys := []string{name, ""}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		keys[1] = k
		var err error
		switch k {
		case "name":
			pkg.DisplayName, err = p.entryStr(v, keys)
		case "license":
			pkg.License, err = p.entryStr(v, keys)
		case "license_path":
			pkg.LicensePath, err = p.entryStr(v, keys)
		case "version":
			var s string
			if s, err = p.entryStr(v, keys); err == nil {
				pkg.Version, err = version.Parse(s)
				if err != nil {
					err = p.entry(keys, "%v", err)
				}
			}
		case "cuda_variant":
			p.variants(v, keys, &pkg)
		default:
			if _, isObj := v.(map[string]any); !isObj && !IsPlatformKey(k) {
				p.warn(keys, "unknown field %q ignored (found %s)", k, kind(v))
				continue
			}
			if !IsPlatformKey(k) {
				p.warnings = append(p.warnings, Warning{File: p.file, Path: jsonPath(keys), PlatformKey: k, Msg: unknownPlatformKey(k, 1, 1)})
				continue
			}
			err = p.platform(k, v, keys, &pkg)
		}
		if err != nil {
			return pkg, err
		}
	}
	if pkg.Version.IsZero() {
		return pkg, p.entry([]string{name}, "package %q has no \"version\": expected a version such as \"12.4.127\"", name)
	}
	if len(pkg.Archives) == 0 {
		return pkg, p.entry([]string{name}, "package %q has no archive: expected at least one platform key (%s) with an archive", name, strings.Join(PlatformKeys(), ", "))
	}
	sort.Slice(pkg.Archives, func(i, j int) bool {
		a, b := pkg.Archives[i], pkg.Archives[j]
		if a.Platform != b.Platform {
			return platformOrder(a.Platform) < platformOrder(b.Platform)
		}
		return a.Variant < b.Variant
	})
	return pkg, nil
}

// unknownPlatformKey is the warning for a platform key k that this many
// packages, in this many files, carry.
func unknownPlatformKey(k string, packages, files int) string {
	known := strings.Join(PlatformKeys(), ", ")
	if packages == 1 {
		return fmt.Sprintf("unknown platform key %q ignored (known: %s)", k, known)
	}
	return fmt.Sprintf("unknown platform key %q ignored in %d packages of %d %s, the first here (known: %s)", k, packages, files, plural(files, "manifest"), known)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func platformOrder(k string) int {
	for i, p := range PlatformKeys() {
		if p == k {
			return i
		}
	}
	return len(PlatformKeys())
}

// variants reads cuda_variant. It is informative only (the archives' variant
// keys decide what serves which CUDA version), so a shape it does not know is
// a warning.
func (p *parser) variants(raw any, keys []string, pkg *Package) {
	list, ok := raw.([]any)
	if !ok {
		p.warn(keys, "cuda_variant ignored: expected a list of CUDA versions such as [\"11\", \"12\"], found %s", kind(raw))
		return
	}
	for i, e := range list {
		at := append(append([]string{}, keys...), "["+strconv.Itoa(i)+"]")
		s, ok := e.(string)
		if !ok {
			p.warn(at, "ignored: expected a CUDA version such as \"12\", found %s", kind(e))
			continue
		}
		if _, err := version.Parse(s); err != nil {
			p.warn(at, "ignored: expected a CUDA version such as \"12\": %v", err)
			continue
		}
		pkg.Variants = append(pkg.Variants, s)
	}
}

func (p *parser) platform(key string, raw any, keys []string, pkg *Package) error {
	obj, ok := raw.(map[string]any)
	if !ok {
		return p.entry(keys, "expected an archive object {relative_path, sha256, md5, size} or variant objects such as \"cuda12\", found %s", kind(raw))
	}
	if _, ok := obj["relative_path"]; ok {
		a, err := p.archive(obj, keys)
		if err != nil {
			return err
		}
		a.Platform = key
		pkg.Archives = append(pkg.Archives, a)
		return nil
	}
	if len(obj) == 0 {
		return p.entry(keys, "expected an archive object or variant objects such as \"cuda12\", found an empty object")
	}
	// One path for all the variants, as for pkg's fields.
	vkeys := append(slices.Clip(keys), "")
	for _, vk := range slices.Sorted(maps.Keys(obj)) {
		vkeys[len(vkeys)-1] = vk
		if _, err := parseVariant(vk); err != nil {
			if _, isArchiveField := archiveFields[vk]; isArchiveField {
				return p.entry(keys, "archive has no \"relative_path\": expected a path relative to the redist folder")
			}
			// A variant key of a shape this cudapkgs does not know (NVIDIA's
			// next split): that archive is left out, the others serve.
			p.warn(vkeys, "unknown variant key %q ignored: %v", vk, err)
			continue
		}
		aobj, ok := obj[vk].(map[string]any)
		if !ok {
			p.warn(vkeys, "variant %q ignored: expected an archive object {relative_path, sha256, md5, size}, found %s", vk, kind(obj[vk]))
			continue
		}
		if _, ok := aobj["relative_path"]; !ok {
			return p.entry(vkeys, "archive has no \"relative_path\": expected a path relative to the redist folder")
		}
		a, err := p.archive(aobj, vkeys)
		if err != nil {
			return err
		}
		a.Platform, a.Variant = key, vk
		pkg.Archives = append(pkg.Archives, a)
	}
	return nil
}

var archiveFields = map[string]struct{}{"relative_path": {}, "sha256": {}, "md5": {}, "size": {}, "url": {}, "strip_prefix": {}}

func (p *parser) archive(obj map[string]any, keys []string) (Archive, error) {
	var a Archive
	var err error
	at := func(k string) []string { return append(append([]string{}, keys...), k) }
	if a.RelativePath, err = p.strField(obj, keys, "relative_path"); err != nil {
		return a, err
	}
	if err := checkRelativePath(a.RelativePath); err != nil {
		return a, p.fail(at("relative_path"), "%v", err)
	}
	if err := checkPathGrammar(a.RelativePath); err != nil {
		return a, p.entry(at("relative_path"), "%v", err)
	}
	if err := checkArchiveName(a.RelativePath); err != nil {
		return a, p.entry(at("relative_path"), "%v", err)
	}
	_, ok := obj["sha256"]
	if !ok {
		return a, p.fail(keys, "archive has no \"sha256\": expected 64 hex digits")
	}
	if a.SHA256, err = p.strField(obj, keys, "sha256"); err != nil {
		return a, err
	}
	if !isHex(a.SHA256, 64) {
		return a, p.fail(at("sha256"), "sha256 %q is not 64 hex digits", a.SHA256)
	}
	a.SHA256 = strings.ToLower(a.SHA256)
	if _, ok := obj["md5"]; ok {
		if a.MD5, err = p.strField(obj, keys, "md5"); err != nil {
			return a, err
		}
		if !isHex(a.MD5, 32) {
			return a, p.fail(at("md5"), "md5 %q is not 32 hex digits", a.MD5)
		}
	}
	if raw, ok := obj["size"]; ok {
		n, err := parseSize(raw)
		if err != nil {
			return a, p.fail(at("size"), "%v", err)
		}
		a.Size = n
	}
	if _, ok := obj["url"]; ok {
		if a.URL, err = p.strField(obj, keys, "url"); err != nil {
			return a, err
		}
		if err := checkArchiveURL(a.URL); err != nil {
			return a, p.fail(at("url"), "%v", err)
		}
	}
	if _, ok := obj["strip_prefix"]; ok {
		if a.StripPrefix, err = p.strField(obj, keys, "strip_prefix"); err != nil {
			return a, err
		}
		if err := checkRelativePath(a.StripPrefix); err != nil {
			return a, p.fail(at("strip_prefix"), "%v", strings.Replace(err.Error(), "relative_path", "strip_prefix", 1))
		}
		if err := checkPathGrammar(a.StripPrefix); err != nil {
			return a, p.fail(at("strip_prefix"), "%v", strings.Replace(err.Error(), "relative_path", "strip_prefix", 1))
		}
	}
	return a, nil
}

// checkArchiveURL accepts an absolute https or http URL without user
// information, fragment or characters a build file would need to escape: it
// becomes a download URL in generated files.
func checkArchiveURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("url %q: %v", truncate(s, 80), err)
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return fmt.Errorf("url %q: expected an absolute https:// URL such as \"https://files.pythonhosted.org/packages/…/x.whl\"", truncate(s, 80))
	case u.User != nil || u.Fragment != "":
		return fmt.Errorf("url %q: expected a URL without user information or fragment", truncate(s, 80))
	case strings.ContainsAny(s, "\"'\\ \t\n\r$`"):
		return fmt.Errorf("url %q holds a quote, backslash, space, '$' or '`': expected a plain URL", truncate(s, 80))
	}
	return nil
}

// parseSize accepts NVIDIA's string form ("1157180") and a plain JSON number.
func parseSize(raw any) (int64, error) {
	var s string
	switch v := raw.(type) {
	case string:
		s = v
	case json.Number:
		s = v.String()
	default:
		return 0, fmt.Errorf("expected a size in bytes, found %s", kind(raw))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err == nil && n < 0:
		return 0, fmt.Errorf("size %s is negative: expected a non-negative number of bytes", s)
	case err != nil && errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("size %s is too large: expected a number of bytes below 2^63", truncate(s, 40))
	case err != nil:
		return 0, fmt.Errorf("size %s is not a number: expected a non-negative number of bytes", truncate(s, 40))
	}
	return n, nil
}

// checkRelativePath refuses paths that could escape the redist tree: an
// archive URL is base + relative_path, and the same path names the file in
// caches and mirrors.
func checkRelativePath(rel string) error {
	switch {
	case rel == "":
		return fmt.Errorf("relative_path is empty: expected a path such as \"<package>/linux-x86_64/<package>-linux-x86_64-<version>-archive.tar.xz\"")
	case strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || (len(rel) > 1 && rel[1] == ':'):
		return fmt.Errorf("relative_path %s is absolute: expected a path relative to the redist folder", quotePath(rel))
	case strings.Contains(rel, "://"):
		return fmt.Errorf("relative_path %s is a URL: expected a path relative to the redist folder", quotePath(rel))
	case hasBackslashOrNewline(rel):
		return fmt.Errorf("relative_path %s holds a backslash or control character: expected a plain relative path", quotePath(rel))
	}
	// Without strings.Split: its slice was an allocation per archive on
	// every load (issue 25).
	for rest := rel; ; {
		part, tail, more := strings.Cut(rest, "/")
		if part == ".." {
			return fmt.Errorf("relative_path %s climbs out of the redist folder with \"..\": expected a path inside it", quotePath(rel))
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// hasBackslashOrNewline is strings.ContainsAny(s, "\\\x00\n\r") without
// the set built per call: it runs on every archive of every load (issue 25).
func hasBackslashOrNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', 0, '\n', '\r':
			return true
		}
	}
	return false
}

// entryStr is str for fields whose defect confines itself to the entry.
func (p *parser) entryStr(raw any, keys []string) (string, error) {
	s, err := p.str(raw, keys)
	if err != nil {
		return "", entryError{err.(*Error)}
	}
	return s, nil
}

// strField is str for obj[k] under keys, building k's path only for a
// message: an archive's fields are read on every load (issue 25).
func (p *parser) strField(obj map[string]any, keys []string, k string) (string, error) {
	if s, ok := obj[k].(string); ok {
		return s, nil
	}
	return p.str(obj[k], append(slices.Clip(keys), k))
}

func (p *parser) str(raw any, keys []string) (string, error) {
	s, ok := raw.(string)
	if !ok {
		return "", p.fail(keys, "expected a string, found %s", kind(raw))
	}
	return s, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	// By byte, not by rune: a non-ASCII byte is no hex digit either, and
	// every archive's sha256 passes here on each load (issue 25).
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func kind(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string " + truncate(strconv.Quote(v), 40)
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case json.Number:
		return "a number " + truncate(v.String(), 40)
	}
	return fmt.Sprintf("%T", v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
