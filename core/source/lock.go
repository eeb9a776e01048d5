package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2/maybe"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/manifest"
)

// LockFileName is the lock file's usual name.
const LockFileName = "cudapkgs.lock"

// LockVersion is the lock file format this package reads and writes.
const LockVersion = 1

// Lock pins manifests by sha256. Its file is JSON:
//
//	{
//	  "version": 1,
//	  "manifests": {
//	    "cuda/redistrib_12.4.1.json": {
//	      "sha256": "9cd815f3…",
//	      "size": 58445
//	    }
//	  }
//	}
//
// with manifests sorted by key, a two-space indent and a final newline, so
// the same entries always give the same bytes.
type Lock struct {
	// Path is the file the lock was read from, for messages.
	Path string
	// Manifests maps a Key to its pin.
	Manifests map[string]LockEntry
}

// LockEntry pins one manifest.
type LockEntry struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// EntryFor pins data.
func EntryFor(data []byte) LockEntry {
	sum := sha256.Sum256(data)
	return LockEntry{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

// NewLock returns an empty lock that will be written to path.
func NewLock(path string) *Lock { return &Lock{Path: path, Manifests: map[string]LockEntry{}} }

// ReadLock reads a lock file. A missing file is an empty lock; a file that
// does not parse is an error naming the file and the problem.
func ReadLock(path string) (*Lock, error) { return ReadLockContext(context.Background(), path) }

// ReadLockContext is ReadLock ended by ctx. The file must be a regular file
// (or a symbolic link to one) of at most inputfile.Lock.Max bytes.
func ReadLockContext(ctx context.Context, path string) (*Lock, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Lock)
	if errors.Is(err, fs.ErrNotExist) {
		return NewLock(path), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading lock file: %w", err)
	}
	return ParseLock(path, data)
}

// LockError is a lock file that does not parse.
type LockError struct {
	File      string
	Line, Col int // 0 when unknown
	Msg       string
}

func (e *LockError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ParseLock reads a lock file's bytes strictly: unknown fields, a missing or
// unsupported version, malformed keys, hashes or sizes are errors.
func ParseLock(file string, data []byte) (*Lock, error) {
	fail := func(format string, args ...any) error {
		return &LockError{File: file, Msg: fmt.Sprintf(format, args...)}
	}
	var raw struct {
		Version   *lockInt `json:"version"`
		Manifests map[string]struct {
			SHA256 *string  `json:"sha256"`
			Size   *lockInt `json:"size"`
		} `json:"manifests"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		le := &LockError{File: file, Msg: "invalid lock file: " + err.Error()}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			// Offset counts the offending byte.
			le.Line, le.Col = lineCol(data, se.Offset-1)
		case errors.As(err, &te):
			off := te.Offset
			name, inEntry := strings.CutPrefix(te.Field, "manifests.")
			if off == 0 {
				// lockInt's errors carry no offset: find the value.
				off = valueOffset(data, name)
			}
			le.Line, le.Col = lineCol(data, off)
			field := strconv.Quote(te.Field)
			switch {
			case te.Field == "manifests" && te.Type.Kind() == reflect.Struct:
				field = "an entry of \"manifests\""
			case inEntry:
				field = strconv.Quote(name) + " of an entry of \"manifests\""
			}
			le.Msg = fmt.Sprintf("invalid lock file: %s is a JSON %s, expected %s", field, te.Value, jsonKind(te.Type))
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			le.Msg = "invalid lock file: unexpected end of input; expected {\"version\": 1, \"manifests\": {...}}"
		}
		return nil, le
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("invalid lock file: data after the top-level object")
	}
	if probs := manifest.CheckText(data); len(probs) > 0 {
		pr := probs[0]
		return nil, &LockError{File: file, Line: pr.Line, Col: pr.Col, Msg: "invalid lock file: " + pr.Path + ": " + pr.Msg}
	}
	if err := checkLockFields(data); err != nil {
		return nil, fail("invalid lock file: %v", err)
	}
	switch {
	case raw.Version == nil:
		return nil, fail("no \"version\": expected \"version\": %d", LockVersion)
	case raw.Version.err != nil:
		return nil, fail("\"version\": %s %v: expected \"version\": %d", raw.Version.text, raw.Version.err, LockVersion)
	case raw.Version.n != LockVersion:
		return nil, fail("lock file version %s is not supported: this cudapkgs reads version %d", raw.Version.text, LockVersion)
	case raw.Manifests == nil:
		return nil, fail("no \"manifests\" object: expected \"manifests\": {\"cuda/redistrib_12.4.1.json\": {\"sha256\": ..., \"size\": ...}}")
	}
	l := NewLock(file)
	for _, k := range slices.Sorted(maps.Keys(raw.Manifests)) {
		e := raw.Manifests[k]
		if _, _, err := SplitKey(k); err != nil {
			return nil, fail("manifests: %v", err)
		}
		switch {
		case e.SHA256 == nil:
			return nil, fail("manifests[%q]: no \"sha256\"", k)
		case !isSHA256(*e.SHA256):
			return nil, fail("manifests[%q].sha256: %q is not 64 lower-case hex digits", k, *e.SHA256)
		case e.Size == nil:
			return nil, fail("manifests[%q]: no \"size\"", k)
		case e.Size.err != nil:
			return nil, fail("manifests[%q].size: %s %v: expected a byte count", k, e.Size.text, e.Size.err)
		case e.Size.n <= 0:
			return nil, fail("manifests[%q].size: %s is not a positive byte count", k, e.Size.text)
		}
		l.Manifests[k] = LockEntry{SHA256: *e.SHA256, Size: e.Size.n}
	}
	return l, nil
}

// lockInt is a lock file's whole number: any JSON number whose value is an
// integer, however written (1, 1.0, 1e0, 10e-1 — JSON has one number type,
// and tools that rewrite JSON through floats turn 1 into 1.0), that fits an
// int64. A number with a fraction (1.5) or out of range leaves err set, for
// ParseLock to report with the field's name; a string, even "1", is not a
// number.
type lockInt struct {
	n    int64
	text string
	err  error
}

func (v *lockInt) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return &json.UnmarshalTypeError{Value: jsonValueKind(b), Type: reflect.TypeFor[int64]()}
	}
	v.text = string(b)
	v.n, v.err = wholeNumber(v.text)
	return nil
}

var (
	errNotWhole = errors.New("is not a whole number")
	errRange    = errors.New("is out of range (whole numbers up to 9223372036854775807)")
)

// wholeNumber returns the value of a JSON number s (valid by JSON's grammar:
// encoding/json checked it) when that value is an integer fitting int64.
// It works on the decimal digits, not through float64, so 1.0000000000000001
// (which a float64 rounds to 1) is refused, and an exponent of any size costs
// the same (1e999999999 is out of range without being expanded).
func wholeNumber(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil // 0, 0.0, 0e5, -0
	}
	// The value is digits × 10^shift.
	shift := -len(frac)
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			// An exponent past ±2^31 with non-zero digits is far outside
			// int64 one way, or a fraction the other.
			if strings.HasPrefix(exp, "-") {
				return 0, errNotWhole
			}
			return 0, errRange
		}
		shift += int(e)
	}
	// Trailing zeros of the digits are whole powers of ten.
	t := strings.TrimRight(digits, "0")
	shift += len(digits) - len(t)
	digits = t
	if shift < 0 {
		return 0, errNotWhole
	}
	if len(digits)+shift > 19 {
		return 0, errRange
	}
	u, err := strconv.ParseUint(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil || !neg && u > math.MaxInt64 || neg && u > math.MaxInt64+1 {
		return 0, errRange
	}
	if neg {
		return int64(-u), nil
	}
	return int64(u), nil
}

// jsonValueKind names the JSON value b starts with, as encoding/json's
// messages do.
func jsonValueKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == '"':
		return "string"
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "null"
}

// valueOffset is the offset in data (one JSON object) of the value of the
// first object key named field, at any depth, or 0 when there is none:
// encoding/json gives no offset for an error that a field's UnmarshalJSON
// returns. One pass.
func valueOffset(data []byte, field string) int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	var inObject []bool // per open container: an object (else an array)
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			inObject = append(inObject, tok == json.Delim('{'))
			expectKey = tok == json.Delim('{')
			continue
		case json.Delim('}'), json.Delim(']'):
			inObject = inObject[:len(inObject)-1]
		default:
			if expectKey {
				if tok == field {
					off := dec.InputOffset()
					for off < int64(len(data)) && strings.IndexByte(" \t\r\n:", data[off]) >= 0 {
						off++
					}
					return off
				}
				expectKey = false
				continue
			}
		}
		// A value ended: a key follows it in an object.
		expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
}

// checkLockFields refuses field names other than those of the format, as
// written: encoding/json matches them ignoring case, so "SHA256" would fill
// sha256 and, beside a "sha256", the last of the two would win unseen.
func checkLockFields(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if k != "version" && k != "manifests" {
			return fmt.Errorf("unknown field %q: expected \"version\" and \"manifests\" (field names are case-sensitive)", k)
		}
	}
	var entries map[string]map[string]json.RawMessage
	if raw, ok := top["manifests"]; ok {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		for _, k := range slices.Sorted(maps.Keys(entries[key])) {
			if k != "sha256" && k != "size" {
				return fmt.Errorf("manifests[%q]: unknown field %q: expected \"sha256\" and \"size\" (field names are case-sensitive)", key, k)
			}
		}
	}
	return nil
}

// Marshal returns the lock file's bytes.
func (l *Lock) Marshal() []byte {
	out := struct {
		Version   int                  `json:"version"`
		Manifests map[string]LockEntry `json:"manifests"`
	}{LockVersion, l.Manifests}
	if out.Manifests == nil {
		out.Manifests = map[string]LockEntry{}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err) // strings and integers always marshal
	}
	return append(data, '\n')
}

// Write replaces the file at l.Path atomically.
func (l *Lock) Write() error {
	if err := maybe.WriteFile(l.Path, l.Marshal(), 0o644); err != nil {
		return fmt.Errorf("writing lock file: %w", err)
	}
	return nil
}

// LockMismatchError is a manifest whose bytes differ from its lock entry.
type LockMismatchError struct {
	File, Key, LockFile string
	Expected, Actual    LockEntry
}

func (e *LockMismatchError) Error() string {
	return e.Message("a fetch that updates the lock")
}

// Message is the error's text with the way to accept the new bytes said as
// the caller's users take it ("`cudapkgs manifests fetch --update-lock`").
func (e *LockMismatchError) Message(accept string) string {
	return fmt.Sprintf("%s: sha256 %s (%d bytes) does not match %s, which pins %s to sha256 %s (%d bytes): refused (the manifest changed after it was locked; fetch it again, or accept the new bytes with %s)",
		e.File, e.Actual.SHA256, e.Actual.Size, e.LockFile, e.Key, e.Expected.SHA256, e.Expected.Size, accept)
}

// Check is a manifest.LoadOptions.Check: a manifest the lock lists must have
// its sha256 and size. Manifests the lock does not list pass.
func (l *Lock) Check(file, key string, data []byte) error {
	want, ok := l.Manifests[key]
	if !ok {
		return nil
	}
	if got := EntryFor(data); got != want {
		return &LockMismatchError{File: file, Key: key, LockFile: l.Path, Expected: want, Actual: got}
	}
	return nil
}

// OverrideError is a manifest of one source (the download cache) that
// would replace another source's copy of the same release (the snapshot
// built into cudapkgs), whose own lock pins other bytes, while no lock of
// the run pins the manifest: a tampered cache must not win unseen.
type OverrideError struct {
	File, Key string
	Actual    LockEntry
	// Source is the source whose copy would be replaced ("snapshot"), and
	// PinnedBy its lock.
	Source, PinnedBy string
	Expected         LockEntry
	// Locks are the run's lock files (none pins Key); "" when there is
	// none.
	Locks []string
}

func (e *OverrideError) Error() string {
	return e.Message("a fetch of that release into the workspace's lock")
}

// Message is the error's text with the way to fetch and pin the release
// said as the caller's users take it ("`cudapkgs manifests fetch --release
// cuda=12.4.1`", which downloads a cached copy that differs from the
// snapshot's again: Options.Known).
func (e *OverrideError) Message(pin string) string {
	locks := "there is no lock file"
	if len(e.Locks) > 0 {
		locks = "no lock of this run pins it (" + strings.Join(e.Locks, ", ") + ")"
	}
	return fmt.Sprintf("%s: sha256 %s (%d bytes) would replace the %s's copy of %s, which %s pins to sha256 %s (%d bytes), and %s: refused (a manifest replaces the %s's copy only when a lock pins it; delete the file to use the %s's copy, or download the release again and pin what arrives with %s)",
		e.File, e.Actual.SHA256, e.Actual.Size, e.Source, e.Key, e.PinnedBy, e.Expected.SHA256, e.Expected.Size, locks, e.Source, e.Source, pin)
}

// MergeError is an entry that another writer of the lock file gave other
// bytes while this one was fetching.
type MergeError struct {
	LockFile, Key string
	Theirs, Ours  LockEntry
}

func (e *MergeError) Error() string { return e.Message("with an update of the lock") }

// Message is the error's text with the way to replace the entry said as the
// caller's users take it ("with --update-lock").
func (e *MergeError) Message(replace string) string {
	return fmt.Sprintf("%s: %s was locked by another run to sha256 %s while this one fetched sha256 %s: run again, or %s to replace it", e.LockFile, e.Key, e.Theirs.SHA256, e.Ours.SHA256, replace)
}

// Merge adds entries to the lock file at path under an exclusive file lock
// (see FileLockPath), so that concurrent writers of one lock file lose none
// of each other's entries: the file is read again under the lock, entries
// are added to it (replacing those that differ only when replace is set;
// otherwise such a difference is a *MergeError), and it is written, only
// when its bytes change. It returns the lock as written and whether it was.
func Merge(ctx context.Context, path string, entries map[string]LockEntry, replace bool) (*Lock, bool, error) {
	unlock, err := lockFile(ctx, path)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	cur, err := ReadLockContext(ctx, path)
	if err != nil {
		return nil, false, err
	}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		e := entries[k]
		if old, ok := cur.Manifests[k]; ok && old != e && !replace {
			return nil, false, &MergeError{LockFile: path, Key: k, Theirs: old, Ours: e}
		}
		cur.Manifests[k] = e
	}
	data, err := inputfile.Read(ctx, path, inputfile.Lock)
	if err == nil && bytes.Equal(data, cur.Marshal()) {
		return cur, false, nil
	}
	if err := cur.Write(); err != nil {
		return nil, false, err
	}
	return cur, true, nil
}

// FileLockPath is the file that writers of the lock file at path lock:
// .<name>.flock beside it. (The lock file itself is replaced by a rename on
// every write, so it cannot carry the lock.)
func FileLockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".flock")
}

// lockFile takes the exclusive file lock of the lock file at path, waiting
// until ctx ends.
func lockFile(ctx context.Context, path string) (func(), error) {
	fl := flock.New(FileLockPath(path))
	ok, err := fl.TryLockContext(ctx, 25*time.Millisecond)
	if err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("locking %s for writing: %w", path, err)
	}
	return func() { _ = fl.Unlock() }, nil
}

// jsonKind names what JSON value a Go type reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
