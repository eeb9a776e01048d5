// Package stamp decides whether a generation can be skipped. A run hashes
// the inputs it knows before it starts (Digest), lists those it finds while
// it runs, and records both with the sha256 of every file it writes (Make);
// outdir.Write puts those bytes in the output folder in the same swap as the
// tree. UpToDate answers, from the folder alone, whether they all still
// match, so the caller can skip starting anything. docs/output.md says what
// each part guards.
package stamp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/outdir"
)

const stampVersion = "cudapkgs stamp v2"

// Kind is what an Input is, and so how its digest is taken.
type Kind int

const (
	// Value is a name and a value hashed as given: a flag, the running
	// binary's identity, a plugin's declared checksum.
	Value Kind = iota
	// File is a file, by path and bytes.
	File
	// Manifests is a folder, by path and the path and bytes of the
	// redistrib_<version>.json files directly in it (the ones
	// manifest.LoadDir reads).
	Manifests
)

// String is the kind's word in the stamp.
func (k Kind) String() string {
	switch k {
	case Value:
		return "value"
	case File:
		return "file"
	case Manifests:
		return "manifests"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Input is one thing a run depends on. Name is the value's label, or the
// path of the file or folder.
type Input struct {
	Kind        Kind
	Name, Value string
}

// Inputs are a run's inputs, in a fixed order.
type Inputs []Input

func (in Inputs) hash(h hash.Hash) error {
	for _, i := range in {
		switch i.Kind {
		case Value:
			fmt.Fprintf(h, "value %q %q\n", i.Name, i.Value)
		case File:
			if err := hashFile(h, i.Name); err != nil {
				return err
			}
		case Manifests:
			fmt.Fprintf(h, "manifests %q\n", i.Name)
			if err := hashManifests(h, i.Name); err != nil {
				return err
			}
		default:
			return fmt.Errorf("input %q: unknown kind %d", i.Name, i.Kind)
		}
	}
	return nil
}

// Digest hashes the inputs known before a run starts. A run takes it first,
// so that an input changing while it runs makes the next run do the work
// again rather than trust this one's output.
func Digest(before Inputs) ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", stampVersion)
	if err := before.hash(h); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// key combines the digest of the inputs known before the run with the bytes
// of those found during it (after).
func key(before []byte, after Inputs) (string, error) {
	h := sha256.New()
	h.Write(before)
	if err := after.hash(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashManifests hashes the names and bytes of the redistrib_<version>.json
// files directly in dir, as manifest.LoadDir and LoadProductContext pick them.
func hashManifests(h hash.Hash, dir string) error {
	files, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, fe := range files {
		if _, ok := manifest.ReleaseFromFileName(fe.Name()); !ok || fe.IsDir() {
			continue
		}
		p := filepath.Join(dir, fe.Name())
		b, err := inputfile.Read(context.Background(), p, inputfile.Manifest)
		if err != nil {
			// Refused (a named pipe, a device, over the size limit): the
			// loader refuses it too and says why; its state is the input.
			fmt.Fprintf(h, "refused %q %v\n", p, err)
			continue
		}
		fmt.Fprintf(h, "file %q %d\n", p, len(b))
		h.Write(b)
	}
	return nil
}

func hashFile(h hash.Hash, p string) error {
	// Never read what is not a regular file: a named pipe would block and
	// a device would not end.
	if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
		fmt.Fprintf(h, "special %q %v\n", p, st.Mode())
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d\n", p, len(b))
	h.Write(b)
	return nil
}

// Make is the stamp for outdir.Options.Stamp: the key of the run's inputs (the
// Digest of those known before it, and the inputs found during it, which it
// lists so that UpToDate can hash them again) and the sha256 of every file
// of the tree. outdir.Write puts it in place in the same swap as the tree, so that
// a stamp is never seen with another run's files.
func Make(before []byte, after Inputs, tree buildfile.Tree) ([]byte, error) {
	k, err := key(before, after)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n", buildfile.Header, stampComment)
	fmt.Fprintf(&b, "key %s\n", k)
	for _, i := range after {
		fmt.Fprintf(&b, "%s %s", i.Kind, strconv.Quote(i.Name))
		if i.Kind == Value {
			fmt.Fprintf(&b, " %s", strconv.Quote(i.Value))
		}
		b.WriteByte('\n')
	}
	for _, p := range tree.Paths() {
		sum := sha256.Sum256(tree[p])
		fmt.Fprintf(&b, "out %s %s\n", hex.EncodeToString(sum[:]), strconv.Quote(p))
	}
	return b.Bytes(), nil
}

const stampComment = "# " + stampVersion + ": the inputs and outputs of the last run; while they match, generate does nothing (--force: regenerate)."

// UpToDate reports whether dir holds a stamp whose key matches the inputs as
// they are now (before: Digest of those known before the run; the stamp
// lists the others) and whose every listed file still has the recorded
// bytes. Any doubt (no stamp, an unreadable input or output, a line it does
// not know) answers false: the caller then does the work.
func UpToDate(dir string, before []byte) bool {
	data, err := os.ReadFile(filepath.Join(dir, outdir.StampFile))
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 3 || lines[0] != buildfile.Header || lines[1] != stampComment {
		return false
	}
	var after Inputs
	var k string
	type output struct{ sum, path string }
	var outs []output
	for _, l := range lines[2:] {
		word, rest, _ := strings.Cut(l, " ")
		switch word {
		case "key":
			k = rest
		case "value", "file", "manifests":
			in, ok := parseInput(word, rest)
			if !ok {
				return false
			}
			after = append(after, in)
		case "out":
			sum, q, _ := strings.Cut(rest, " ")
			p, err := strconv.Unquote(q)
			if err != nil || !filepath.IsLocal(filepath.FromSlash(p)) {
				return false
			}
			outs = append(outs, output{sum, p})
		default:
			return false
		}
	}
	if k == "" || len(outs) == 0 {
		return false
	}
	if now, err := key(before, after); err != nil || now != k {
		return false
	}
	// Reading and hashing every output is most of a no-op run (about 2,700
	// files for the full matrix): spread over the CPUs, and the first
	// mismatch stops the rest.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	stale := errors.New("stale")
	var done atomic.Bool
	for _, o := range outs {
		g.Go(func() error {
			if done.Load() {
				return stale
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(o.path)))
			if err != nil {
				done.Store(true)
				return stale
			}
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != o.sum {
				done.Store(true)
				return stale
			}
			return nil
		})
	}
	return g.Wait() == nil
}

// parseInput reads a stamp's input line after its first word.
func parseInput(word, rest string) (Input, bool) {
	var in Input
	for _, k := range []Kind{Value, File, Manifests} {
		if k.String() == word {
			in.Kind = k
		}
	}
	name, tail, err := unquotePrefix(rest)
	if err != nil {
		return in, false
	}
	in.Name = name
	if in.Kind != Value {
		return in, tail == ""
	}
	v, tail, err := unquotePrefix(strings.TrimPrefix(tail, " "))
	in.Value = v
	return in, err == nil && tail == ""
}

// unquotePrefix unquotes the Go string literal s starts with and returns
// the rest.
func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", err
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err
}
