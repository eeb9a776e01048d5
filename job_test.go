package cudapkgs_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
)

// countingBuiltins start the built-in plugins as this test binary, through
// a script that first adds what it serves (a plugin's name, or the names
// joined by commas) as a line to the file it returns: one line a process
// start. Like BuiltinSpecs, they describe each built-in in process, so a
// run starts none for products it has no packages of; shared, they share
// one process as BuiltinSpecs' do, else each has its own.
func countingBuiltins(t *testing.T, sharedProcess bool) ([]fixup.Spec, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "plugin")
	writeFile(t, script, "#!/bin/sh\necho \"$3\" >> '"+count+"'\nexec '"+exe+"' \"$@\"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	var specs []fixup.Spec
	for _, n := range builtin.Names() {
		s := fixup.Spec{Name: n, Command: []string{script, "plugin", "serve", n}, Builtin: true,
			Describe: builtin.Plugins()[n]().Describe}
		if sharedProcess {
			s.Command[3], s.Process = strings.Join(builtin.Names(), ","), builtin.Shared
		}
		specs = append(specs, s)
	}
	return specs, count
}

func starts(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestGenerateUpToDate: the one call writes the tree with its stamp; a
// second call with the same job answers up to date without starting a
// plugin; Force regenerates, starting them again and writing no file
// whose bytes did not change.
func TestGenerateUpToDate(t *testing.T) {
	specs, count := countingBuiltins(t, true)
	ws := t.TempDir()
	job := cudapkgs.Job{
		Inputs: cudapkgs.Inputs{
			Manifests: shared.Manifests(t),
			Workspace: ws,
			Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
				CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"}}}},
			Builtins: specs,
		},
		Out: filepath.Join(ws, "out"),
	}
	ctx := context.Background()
	first, err := cudapkgs.Generate(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	// The built-ins share one process.
	n := starts(t, count)
	if first.UpToDate || first.Written == 0 || first.Unchanged != 0 || n != 1 {
		t.Fatalf("first run: %+v, %d plugin starts; want files written, 1 start", first, n)
	}
	if _, err := os.Stat(filepath.Join(job.Out, outdir.StampFile)); err != nil {
		t.Fatalf("no stamp: %v", err)
	}

	again, err := cudapkgs.Generate(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpToDate || again.Written != 0 || starts(t, count) != n {
		t.Errorf("second run: %+v, %d plugin starts; want up to date, still %d", again, starts(t, count), n)
	}

	job.Force = true
	forced, err := cudapkgs.Generate(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if forced.UpToDate || forced.Written != 0 || forced.Unchanged != first.Written || starts(t, count) != 2*n {
		t.Errorf("forced run: %+v, %d plugin starts; want %d unchanged, %d starts", forced, starts(t, count), first.Written, 2*n)
	}
}

// TestGenerateErrors: a job without a folder is refused before anything
// runs; a folder that cannot be written is an *OutputError naming it.
func TestGenerateErrors(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "file")
	writeFile(t, file, "not a folder\n")
	in := cudapkgs.Inputs{
		Manifests: shared.Manifests(t),
		Workspace: ws,
		Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
			CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"}}}},
	}
	if _, err := cudapkgs.Generate(context.Background(), cudapkgs.Job{Inputs: in}); !errors.Is(err, cudapkgs.ErrNoOut) {
		t.Errorf("no Out: error = %v, want ErrNoOut", err)
	}
	out := filepath.Join(file, "out")
	_, err := cudapkgs.Generate(context.Background(), cudapkgs.Job{Inputs: in, Out: out})
	var oe *cudapkgs.OutputError
	if !errors.As(err, &oe) || !bytes.HasPrefix([]byte(err.Error()), []byte(out)) {
		t.Errorf("Out under a file: error = %v, want an *OutputError starting with %s", err, out)
	}
}

// TestLibraryDoc: docs/library.md shows TestMain and Example of
// pipeline_test.go as they are, so the page's program is one that runs.
func TestLibraryDoc(t *testing.T) {
	doc := readFile(t, filepath.Join("docs", "library.md"))
	src := readFile(t, "pipeline_test.go")
	for _, name := range []string{"func TestMain(", "func Example()"} {
		i := strings.Index(src, name)
		if i < 0 {
			t.Fatalf("pipeline_test.go has no %s", name)
		}
		n := strings.Index(src[i:], "\n}\n")
		if n < 0 {
			t.Fatalf("pipeline_test.go: %s has no end", name)
		}
		if fn := src[i : i+n+3]; !strings.Contains(doc, fn) {
			t.Errorf("docs/library.md does not show pipeline_test.go's %s as it is:\n%s", name, fn)
		}
	}
}
