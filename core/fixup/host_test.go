package fixup_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// testPlugin is the misbehaving plugin binary, built once for the package.
var testPlugin string

func TestMain(m *testing.M) {
	// A plugin started by a host below inherits the host's environment:
	// its own arguments say first what it is.
	if serveSelf() {
		return
	}
	if p := os.Getenv(envGroupHost); p != "" {
		runGroupHost(p)
		return
	}
	if p := os.Getenv(envSelfHost); p != "" {
		runSelfHost(p)
		return
	}
	if p := os.Getenv(envHost); p != "" {
		runHost(p)
		return
	}
	dir, err := os.MkdirTemp("", "fixup-test")
	if err != nil {
		panic(err)
	}
	testPlugin = filepath.Join(dir, "testplugin")
	out, err := exec.Command("go", "build", "-o", testPlugin, "github.com/cudapkgs/cudapkgs/integration/testplugin").CombinedOutput()
	if err != nil {
		panic("building testplugin: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func sum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func sha(data []byte) []byte {
	s := sha256.Sum256(data)
	return s[:]
}

func spec(t *testing.T, mode string, products ...string) fixup.Spec {
	return fixup.Spec{Name: "testplugin", Command: append([]string{testPlugin, mode}, products...), SHA256: sum(t, testPlugin)}
}

var fast = fixup.Options{CallTimeout: 2 * time.Second, StartTimeout: 10 * time.Second}

// A well-behaved plugin is started once and serves every set.
func TestApplyOK(t *testing.T) {
	cfg, sets := builtintest.Env().Sets(t, []string{"12.4.1", "13.0.0"}, []string{"linux-x86_64"})
	h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "slow")}, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	applied, err := h.Apply(context.Background(), cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	sets = applied
	info := h.Plugins()
	if len(info) != 1 || info[0].Name != "test-slow" || info[0].ProtocolVersion != 1 || !strings.HasPrefix(info[0].Checksum, "verified sha256:") {
		t.Errorf("plugins = %+v", info)
	}
	for _, s := range sets {
		for _, p := range s.Packages {
			if _, none := s.NoRelease[p.Product]; none {
				continue // kept with the set's reason; no batch reaches a plugin (NPP+ in CUDA 13)
			}
			if p.Files == nil {
				t.Fatalf("CUDA %s %s not fixed", s.CUDA, p.Name)
			}
		}
	}
}

// Every way a plugin can misbehave ends in one error that names the plugin,
// the call and, where it printed something, the tail of its stderr.
func TestMisbehavingPlugins(t *testing.T) {
	cfg, sets := builtintest.Env().Sets(t, []string{"12.4.1"}, []string{"linux-x86_64"})
	tests := []struct {
		mode string
		want []string
	}{
		{"crash", []string{"plugin test-crash: Fixup(CUDA 12.4.1, product ", "exited during the call (crashed)", "stderr (last", "about to dereference a nil map entry", "panic: runtime error"}},
		{"hang", []string{"plugin test-hang: Fixup(CUDA 12.4.1, product ", "did not answer within 2s (it hangs or is too slow)", `hanging forever`}},
		{"exit", []string{"plugin testplugin (" + testPlugin + "): start: ", "testplugin: cannot start: /etc/site-policy.json is missing"}},
		{"noise", []string{"plugin testplugin (" + testPlugin + "): start: ", "hello from a program that is not a plugin"}},
		{"v2", []string{"plugin testplugin (" + testPlugin + "): start: ", "incompatible API version with plugin. Plugin version: 2, Client versions: [1]"}},
		{"garbage", []string{"plugin test-garbage: Fixup(CUDA 12.4.1, product ", `path "../../etc/passwd"`}},
		{"unknown", []string{"plugin test-unknown: Fixup(CUDA 12.4.1, product ", "package no_such_package: unknown package: it is not in the batch"}},
		{"missingdep", []string{"plugin test-missingdep: Fixup(CUDA 12.4.1, product ", "depends on libdoesnotexist, which does not exist in the CUDA 12.4.1 set"}},
		{"cycle", []string{"plugin test-cycle: package ", "dependency cycle in the CUDA 12.4.1 set: "}},
		{"huge", []string{"plugin test-huge: Fixup(CUDA 12.4.1, product ", "larger than max", "its answer is 80.0 MiB, larger than the 64.0 MiB limit for an answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			opts := fast
			if tt.mode == "huge" {
				// Six 80 MB answers take their time on a loaded machine;
				// the point is the message, not the deadline.
				opts.CallTimeout = 30 * time.Second
			}
			h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, tt.mode)}, opts)
			if err == nil {
				defer h.Close()
				_, err = h.Apply(context.Background(), cfg, sets)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestChecksumRefused(t *testing.T) {
	s := spec(t, "slow")
	s.SHA256 = strings.Repeat("0", 64)
	_, err := fixup.Start(context.Background(), []fixup.Spec{s}, fast)
	if err == nil || !strings.Contains(err.Error(), "but it is declared with "+s.SHA256+": refusing to run it") {
		t.Fatalf("error = %v", err)
	}
	s.SHA256 = "xyz"
	if _, err := fixup.Start(context.Background(), []fixup.Spec{s}, fast); err == nil || !strings.Contains(err.Error(), "expected 64 hex digits") {
		t.Fatalf("error = %v", err)
	}
}

func TestTwoPluginsOneProduct(t *testing.T) {
	_, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "slow", "cudnn"), spec(t, "hang", "cudnn")}, fast)
	if err == nil || !strings.Contains(err.Error(), "both fix product cudnn") {
		t.Fatalf("error = %v", err)
	}
}

// A declared plugin that claims a built-in product takes it over.
func TestDeclaredReplacesBuiltin(t *testing.T) {
	builtin := fixup.Spec{Name: "builtin", Command: []string{testPlugin, "slow", "cudnn", "cuda"}, Builtin: true}
	h, err := fixup.Start(context.Background(), []fixup.Spec{builtin, spec(t, "garbage", "cudnn")}, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	info := h.Plugins()
	if strings.Join(info[0].Serves, ",") != "cuda" || strings.Join(info[1].Serves, ",") != "cudnn" {
		t.Errorf("serves: %+v", info)
	}
}

func TestPluginErrorUnwraps(t *testing.T) {
	_, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "exit")}, fast)
	var pe *fixup.PluginError
	if !errors.As(err, &pe) || pe.Plugin != "testplugin" || pe.Call != "start" || len(pe.Stderr) == 0 {
		t.Fatalf("error = %#v", err)
	}
}
