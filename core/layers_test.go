package core_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cudapkgs/cudapkgs"

// layers are the project's units, bottom first, as docs/architecture.md
// draws them. A unit is folders (paths relative to the module root; "." is
// the root package alone); a package belongs to the unit of its longest
// matching folder. A package may import its own unit and the units of
// lower layers, nothing else.
var layers = [][]unit{
	{{"contract", []string{"plugins/sdk", "internal/pluginpb", "internal/pluginhost"}}, {"rules", []string{"rules"}}},
	{{"core", []string{"core"}}},
	{{"internal", []string{"internal"}}, {"snapshot", []string{"snapshot"}}},
	{{"starlark", []string{"starlark"}}, {"plugins", []string{"plugins"}}, {"report", []string{"report"}}},
	{{"root", []string{".", "plugins/builtin"}}},
	{{"cmd", []string{"cmd", "snapshot/rebuild", "integration"}}},
}

type unit struct {
	name    string
	folders []string
}

// cycleUnits are the top folders no import cycle may join, each a unit
// whole (plugins/ holds plugins/builtin too); the contract (plugins/sdk and
// the wire code, internal/pluginpb, and the host's side of it,
// internal/pluginhost) is a unit of its own.
var cycleUnits = []string{"core", "plugins", "starlark", "internal", "contract"}

// cycleUnit is the unit a package counts in for cycles; "" for none.
func cycleUnit(pkg string) string {
	if name, _, _ := place(pkg); name == "contract" {
		return name
	}
	top, _, _ := strings.Cut(pkg, "/")
	if slices.Contains(cycleUnits, top) {
		return top
	}
	return ""
}

// TestLayers holds the imports of every package (its non-test imports, as
// go list gives them) to the layers, and finds no cycle between the
// folders.
func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the layering test asks go list: %v", err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph, err := readGraph(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < 40 {
		t.Fatalf("go list gave %d packages", len(graph))
	}
	for _, p := range checkLayers(graph) {
		t.Error(p)
	}
}

// TestLayersCatch feeds the checks synthetic graphs: each bad import is
// named, as is a cycle between folders that the layer order alone would
// report only as a wrong-way edge.
func TestLayersCatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{"clean", map[string][]string{
			"cmd/cudapkgs": {".", "core/config", "plugins/builtin"}, ".": {"core/fixup", "starlark"},
			"core/fixup": {"core/pkgset", "plugins/sdk"}, "plugins/sdk": {"internal/pluginpb"},
			"plugins/redist": {"plugins/sdk", "core/version"}, "plugins/builtin": {"plugins/redist", "core/fixup"},
		}, nil},
		{"core imports starlark", map[string][]string{"core/pkgset": {"starlark"}}, []string{
			"core/pkgset (core) imports starlark (starlark): against the layers",
		}},
		{"the SDK imports the core's file model", map[string][]string{
			"core/fixup": {"plugins/sdk"}, "plugins/sdk": {"core/file"},
		}, []string{
			"folder cycle: core -> contract -> core (core/fixup imports plugins/sdk; plugins/sdk imports core/file)",
			"plugins/sdk (contract) imports core/file (core): against the layers",
		}},
		{"a test helper imports the composition root", map[string][]string{
			"internal/builtintest": {"plugins/builtin"}, "plugins/internal/wheelfiles": {"internal/fixuptest"},
		}, []string{
			"folder cycle: plugins -> internal -> plugins (plugins/internal/wheelfiles imports internal/fixuptest; internal/builtintest imports plugins/builtin)",
			"internal/builtintest (internal) imports plugins/builtin (root): against the layers",
		}},
		{"two plugin packages across", map[string][]string{"plugins/cudnn": {"report"}}, []string{
			"plugins/cudnn (plugins) imports report (report): against the layers",
		}},
		{"an unplaced folder", map[string][]string{"newdir/x": {"core/version"}}, []string{
			"newdir/x: in no layer",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkLayers(tc.graph)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d = %q, want it to start with %q", i, got[i], w)
				}
			}
		})
	}
}

// readGraph reads go list -json's stream into package -> project imports,
// paths relative to the module ("." for the root).
func readGraph(r io.Reader) (map[string][]string, error) {
	graph := map[string][]string{}
	dec := json.NewDecoder(r)
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			return graph, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list: %w", err)
		}
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		graph[from] = nil
		for _, imp := range p.Imports {
			if to, ok := rel(imp); ok {
				graph[from] = append(graph[from], to)
			}
		}
	}
}

func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// place finds a package's unit and layer; ok is false for a package in no
// layer.
func place(pkg string) (name string, layer int, ok bool) {
	best := -1
	for li, l := range layers {
		for _, u := range l {
			for _, f := range u.folders {
				match := pkg == f || (f != "." && strings.HasPrefix(pkg, f+"/"))
				if match && len(f) > best {
					best, name, layer, ok = len(f), u.name, li, true
				}
			}
		}
	}
	return name, layer, ok
}

// checkLayers lists every import against the layers and every cycle
// between the cycle units, sorted.
func checkLayers(graph map[string][]string) []string {
	var problems []string
	type edge struct{ from, to string }
	witness := map[edge]string{} // unit edge -> one package import giving it
	for _, from := range sortedKeys(graph) {
		fu, fl, ok := place(from)
		if !ok {
			problems = append(problems, from+": in no layer (add its folder to the layers in core/layers_test.go and docs/architecture.md)")
			continue
		}
		for _, to := range graph[from] {
			tu, tl, ok := place(to)
			if !ok || tu == fu {
				continue
			}
			if tl >= fl {
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s): against the layers", from, fu, to, tu))
			}
		}
		for _, to := range graph[from] {
			cf, ct := cycleUnit(from), cycleUnit(to)
			if e := (edge{cf, ct}); cf != "" && ct != "" && cf != ct && witness[e] == "" {
				witness[e] = from + " imports " + to
			}
		}
	}
	// A cycle between folders, found from each unit in order: the first
	// path back to it.
	reported := map[string]bool{}
	for _, start := range cycleUnits {
		var path []string
		var find func(u string) bool
		seen := map[string]bool{}
		find = func(u string) bool {
			for _, next := range cycleUnits {
				if witness[edge{u, next}] == "" {
					continue
				}
				if next == start {
					path = append(path, next)
					return true
				}
				if seen[next] {
					continue
				}
				seen[next] = true
				path = append(path, next)
				if find(next) {
					return true
				}
				path = path[:len(path)-1]
			}
			return false
		}
		path = []string{start}
		if !find(start) {
			continue
		}
		members := slices.Clone(path[:len(path)-1])
		slices.Sort(members)
		if key := strings.Join(members, ","); !reported[key] {
			reported[key] = true
			var why []string
			for i := 0; i+1 < len(path); i++ {
				why = append(why, witness[edge{path[i], path[i+1]}])
			}
			problems = append(problems, fmt.Sprintf("folder cycle: %s (%s)", strings.Join(path, " -> "), strings.Join(why, "; ")))
		}
	}
	slices.Sort(problems)
	return problems
}

func sortedKeys(m map[string][]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
