package fixup_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/cutensor"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

type fuzzBatch struct {
	b   *sdk.Batch
	res *sdk.Result
}

var (
	fuzzBatchesOnce sync.Once
	fuzzBatches     []fuzzBatch
)

// realBatches are real batches built from NVIDIA's manifests (../shared)
// with the built-in plugins' answers: cuDNN and cuTENSOR for CUDA 12.4.1,
// and the toolkit's batch cut to a few packages, so that an execution stays
// fast.
func realBatches(t testing.TB) []fuzzBatch {
	fuzzBatchesOnce.Do(func() {
		fx := fixuptest.New(redist.New(), cudnn.New(), cutensor.New())
		for _, c := range []struct {
			product string
			fixer   sdk.Fixer
		}{{"cudnn", cudnn.New()}, {"cutensor", cutensor.New()}, {"cuda", redist.New()}} {
			b := fx.Batch(t, c.product, "12.4.1", nil)
			if c.product == "cuda" {
				cut := *b
				cut.Packages = nil
				for _, p := range b.Packages {
					if slices.Contains([]string{"cuda_cudart", "cuda_nvcc", "libcublas", "cuda_cccl"}, p.Name) {
						cut.Packages = append(cut.Packages, p)
					}
				}
				b = &cut
			}
			answers := fixuptest.Fix(t, c.fixer, b)
			res := &sdk.Result{}
			for _, p := range b.Packages {
				res.Packages = append(res.Packages, answers[p.Name])
			}
			if err := fixup.Validate("builtin", b, res); err != nil {
				t.Fatalf("the built-in answer is refused: %v", err)
			}
			fuzzBatches = append(fuzzBatches, fuzzBatch{b, res})
		}
	})
	if len(fuzzBatches) == 0 {
		t.Skip("no batches (../shared is missing)")
	}
	return fuzzBatches
}

var linkopt = regexp.MustCompile(`^(-l[A-Za-z0-9_+.-]+|-pthread)$`)

// escapes reports whether an archive path leaves the archive's folder.
func escapes(p string) bool {
	const root = "/archive/root"
	j := filepath.Join(root, filepath.FromSlash(p))
	return !strings.HasPrefix(j, root+"/") || filepath.IsAbs(p) || slices.Contains(strings.Split(p, "/"), "..")
}

// FuzzValidate checks the host's validation of a plugin's answer: answers
// built from fuzz bytes (JSON of an sdk.Result, seeded with the built-in
// plugins' real answers) for a real batch are refused, or they answer each
// package of the batch once, only for its target platforms, with files and
// patch edits that stay inside the archive and link options that are
// library names.
func FuzzValidate(f *testing.F) {
	batches := realBatches(f)
	for i, fb := range batches {
		data, err := json.Marshal(fb.res)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		fb := batches[int(sel)%len(batches)]
		var res sdk.Result
		if json.Unmarshal(data, &res) != nil {
			return
		}
		if err := fixup.Validate("fuzz", fb.b, &res); err != nil {
			if !strings.HasPrefix(err.Error(), "plugin fuzz: ") {
				t.Fatalf("error does not name the plugin: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range res.Packages {
			if seen[p.Name] {
				t.Fatalf("package %s answered twice", p.Name)
			}
			seen[p.Name] = true
			if !slices.ContainsFunc(fb.b.Packages, func(bp sdk.Package) bool { return bp.Name == p.Name }) {
				t.Fatalf("answer for %s, not in the batch", p.Name)
			}
			for plat, pr := range p.Platforms {
				if !slices.Contains(fb.b.Config.Targets, plat) {
					t.Fatalf("%s: answer for %q, not a target", p.Name, plat)
				}
				for _, fl := range pr.Files {
					if escapes(fl.Path) || file.CheckPath(fl.Path) != nil {
						t.Fatalf("%s: file %q escapes or is unsafe", p.Name, fl.Path)
					}
					if fl.SONAME != "" && (strings.Contains(fl.SONAME, "/") || escapes(fl.SONAME)) {
						t.Fatalf("%s: SONAME %q", p.Name, fl.SONAME)
					}
				}
			}
			for _, pa := range p.Patches {
				for _, e := range pa.Edits {
					if escapes(e.Path) {
						t.Fatalf("%s: patch edit of %q escapes", p.Name, e.Path)
					}
				}
			}
			for _, o := range p.StaticLinkopts {
				if !linkopt.MatchString(o) {
					t.Fatalf("%s: link option %q", p.Name, o)
				}
			}
		}
		if len(seen) != len(fb.b.Packages) {
			t.Fatalf("answered %d of %d packages", len(seen), len(fb.b.Packages))
		}
	})
}
