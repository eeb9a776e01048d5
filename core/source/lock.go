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
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
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
		Version   *int `json:"version"`
		Manifests map[string]struct {
			SHA256 *string `json:"sha256"`
			Size   *int64  `json:"size"`
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
			le.Line, le.Col = lineCol(data, te.Offset)
			field := strconv.Quote(te.Field)
			if te.Field == "manifests" && te.Type.Kind() == reflect.Struct {
				field = "an entry of \"manifests\""
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
	case *raw.Version != LockVersion:
		return nil, fail("lock file version %d is not supported: this cudapkgs reads version %d", *raw.Version, LockVersion)
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
		case *e.Size <= 0:
			return nil, fail("manifests[%q].size: %d is not a positive byte count", k, *e.Size)
		}
		l.Manifests[k] = LockEntry{SHA256: *e.SHA256, Size: *e.Size}
	}
	return l, nil
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
