package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestMain lets the scripts run the real command as a subprocess: "exec
// cudapkgs ..." in a script starts this test binary as cudapkgs.
func TestMain(m *testing.M) {
	setGC() // as the command does, so benchmarks measure what users get
	// Tests that call run() in process start the built-in plugins as this
	// test binary ("cudapkgs.test plugin serve redist"): serve them.
	if os.Getenv(sdk.Handshake().MagicCookieKey) != "" && len(os.Args) > 2 && os.Args[1] == "plugin" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, false))
	}
	testscript.Main(m, map[string]func(){
		"cudapkgs": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, false)) },
	})
}

// TestScripts runs testdata/script/*.txtar: whole command lines with their
// exit codes, stdout and stderr. Run with -update to refresh the expected
// output after a deliberate change.
func TestScripts(t *testing.T) {
	manifests := shared.Manifests(t)
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: golden.Update(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("MANIFESTS", manifests)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "cache"))
			env.Setenv("HOME", env.WorkDir)
			// The folder of the commands testscript provides (cudapkgs), first
			// on its PATH: scripts that replace PATH keep it.
			env.Setenv("TESTBIN", filepath.SplitList(env.Getenv("PATH"))[0])
			return nil
		},
	})
}

// The done-when check of issue 2: query for CUDA 12.4.1 on linux-sbsa lists
// every package of the release with its version and NVIDIA's sha256.
func TestQueryListsWholeRelease(t *testing.T) {
	manifests := shared.Manifests(t)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"query", "--manifests", manifests, "--cuda", "12.4.1", "--platform", "linux-sbsa", "--format", "json"}, &out, &errb, false)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got map[string]struct {
		Releases map[string]string `json:"releases"`
		Packages map[string]struct {
			Version   string `json:"version"`
			Platforms map[string]struct {
				SHA256 string `json:"sha256"`
			} `json:"platforms"`
			Unavailable map[string][]string `json:"unavailable"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	set, ok := got["12.4.1"]
	if !ok || len(got) != 1 {
		t.Fatalf("sets: %v", got)
	}
	data, err := os.ReadFile(filepath.Join(manifests, "cuda", "redistrib_12.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for name, v := range raw {
		var p struct {
			Version string `json:"version"`
			SBSA    *struct {
				SHA256 string `json:"sha256"`
			} `json:"linux-sbsa"`
		}
		if json.Unmarshal(v, &p) != nil {
			continue // release_date and friends
		}
		q, ok := set.Packages[name]
		if !ok {
			t.Errorf("%s missing from query output", name)
			continue
		}
		if q.Version != p.Version {
			t.Errorf("%s: version %s, want %s", name, q.Version, p.Version)
		}
		switch {
		case p.SBSA != nil && q.Platforms["linux-sbsa"].SHA256 != p.SBSA.SHA256:
			t.Errorf("%s: sha256 %q, want %q", name, q.Platforms["linux-sbsa"].SHA256, p.SBSA.SHA256)
		case p.SBSA == nil && len(q.Unavailable["linux-sbsa"]) == 0:
			t.Errorf("%s: no sbsa archive, and no reason given", name)
		}
	}
	for product, want := range map[string]string{"cudnn": "9.12.0", "cutensor": "2.8.1", "tensorrt": "10.13.0"} {
		if set.Releases[product] != want {
			t.Errorf("chosen %s = %q, want %s", product, set.Releases[product], want)
		}
	}
}
