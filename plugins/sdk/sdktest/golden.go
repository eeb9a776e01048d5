package sdktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Fixture and golden file names: a fixture is a batch as JSON (its CUDA
// version, configuration, packages and the set's packages), its golden the
// plugin's answer to it.
const (
	fixtureSuffix = ".batch.json"
	goldenSuffix  = ".golden.json"
)

// Golden runs f, served over real gRPC as Run does, on every fixture in dir
// (NAME.batch.json) and holds its answer to NAME.golden.json beside it. With
// update it writes the answers instead. A dir without fixtures fails: a
// golden test that compares nothing would pass whatever the plugin does.
//
// The test reads only dir, so a plugin's golden tests run wherever its
// source is; WriteFixtures makes the fixtures once, from whatever the
// plugin's author builds batches with.
func Golden(t *testing.T, f sdk.Fixer, dir string, update bool) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"+fixtureSuffix))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures (*%s) in %s: %v", fixtureSuffix, dir, err)
	}
	c := Run(t, f)
	for _, name := range names {
		t.Run(filepath.Base(strings.TrimSuffix(name, fixtureSuffix)), func(t *testing.T) {
			if err := check(c, name, update); err != nil {
				t.Error(err)
			}
		})
	}
}

// check runs one fixture and holds (or, with update, writes) its golden.
func check(c Client, name string, update bool) error {
	b, err := readFixture(name)
	if err != nil {
		return err
	}
	res, err := c.Fixup(context.Background(), b)
	if err != nil {
		return fmt.Errorf("Fixup(%s): %w", name, err)
	}
	got, err := encode(res)
	if err != nil {
		return err
	}
	path := strings.TrimSuffix(name, fixtureSuffix) + goldenSuffix
	if update {
		return os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w (run the test with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		return fmt.Errorf("%s differs from the plugin's answer (run with -update to rewrite it, and check the diff):\n%s", path, firstDifference(want, got))
	}
	return nil
}

// WriteFixtures writes each batch as dir/NAME.batch.json and removes the
// fixtures and goldens of names no longer given, so that dir holds exactly
// these.
func WriteFixtures(t testing.TB, dir string, batches map[string]*sdk.Batch) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*"+fixtureSuffix))
	for _, o := range old {
		base := strings.TrimSuffix(filepath.Base(o), fixtureSuffix)
		if _, ok := batches[base]; !ok {
			for _, p := range []string{o, filepath.Join(dir, base+goldenSuffix)} {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
	}
	for name, b := range batches {
		data, err := encode(sorted(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+fixtureSuffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sorted copies a batch with its set's packages in name order, so that a
// fixture does not change with the order the host built the set in.
func sorted(b *sdk.Batch) *sdk.Batch {
	c := *b
	c.SetPackages = slices.Clone(b.SetPackages)
	slices.SortFunc(c.SetPackages, func(x, y sdk.SetPackage) int {
		return strings.Compare(x.Product+"/"+x.Name, y.Product+"/"+y.Name)
	})
	return &c
}

func readFixture(path string) (*sdk.Batch, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b sdk.Batch
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: expected a batch as JSON (CUDA, Product, Config, Packages, SetPackages): %w", path, err)
	}
	return &b, nil
}

// flat is an object of scalars, as MarshalIndent writes it over lines.
var flat = regexp.MustCompile(`\{\n[^{}\[\]]*?\n *\}`)

// encode writes v as indented JSON with each object of scalars (a file, an
// edge, an archive, a set package) on one line: a golden's diff is then a
// line per changed file or edge.
func encode(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, err
	}
	data = flat.ReplaceAllFunc(data, func(obj []byte) []byte {
		fields := strings.Split(string(obj[2:len(obj)-1]), "\n")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		return []byte("{" + strings.TrimSpace(strings.Join(fields, " ")) + "}")
	})
	return append(data, '\n'), nil
}

// firstDifference shows the first line where want and got part, with a
// little of what comes before, rather than two whole files.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			from := max(0, i-3)
			ctx := strings.Join(w[from:min(i, len(w))], "\n")
			return fmt.Sprintf("line %d:\n%s\n- %s\n+ %s", i+1, ctx, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}
