package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// builds holds, per folder and package, the one build of a Go program the
// tests of this process share.
var builds sync.Map // dir+pkg -> *built

type built struct {
	once      sync.Once
	path, sum string
	err       error
}

// buildTool builds a Go program for the tests and returns its path and sha256.
func buildTool(t *testing.T, dir, pkg, name string) (string, string) {
	t.Helper()
	v, _ := builds.LoadOrStore(dir+"|"+pkg, &built{})
	b := v.(*built)
	b.once.Do(func() {
		// One binary per test process: two runs at once (CI and a developer)
		// must not overwrite each other's between build and checksum.
		out := filepath.Join(os.TempDir(), "cudapkgs-test-"+name+"-"+strconv.Itoa(os.Getpid()))
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = err
			b.path = string(msg)
			return
		}
		data, err := os.ReadFile(out)
		if err != nil {
			b.err = err
			return
		}
		s := sha256.Sum256(data)
		b.path, b.sum = out, hex.EncodeToString(s[:])
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, b.err, b.path)
	}
	return b.path, b.sum
}

type queryOut map[string]struct {
	Packages map[string]struct {
		Role string `json:"role"`
		Deps []struct {
			Name    string `json:"name"`
			Runtime bool   `json:"runtime"`
		} `json:"deps"`
		Files       map[string]map[string][]struct{ Path, Role, SONAME string } `json:"files"`
		Unavailable map[string][]string                                         `json:"unavailable"`
	} `json:"packages"`
}

func query(t *testing.T, args ...string) (queryOut, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"query", "--manifests", shared.Manifests(t), "--format", "json"}, args...), &out, &errb, false)
	var q queryOut
	if code == 0 {
		if err := json.Unmarshal(out.Bytes(), &q); err != nil {
			t.Fatalf("output is not JSON: %v", err)
		}
	} else if out.Len() != 0 {
		t.Errorf("exit %d with output on stdout: %q", code, out.String())
	}
	return q, errb.String(), code
}

func depNames(q queryOut, cuda, pkg string) string {
	var ns []string
	for _, d := range q[cuda].Packages[pkg].Deps {
		ns = append(ns, d.Name)
	}
	return strings.Join(ns, ",")
}

// The done-when of issue 3: libcusolver's deps and files come from the redist
// plugin, through gRPC, and change with the CUDA version.
func TestQueryShowsPluginKnowledge(t *testing.T) {
	q, stderr, code := query(t, "--cuda", "12.4.1,11.8.0", "--platform", "linux-x86_64", "--package", "libcusolver,cuda_nvcc,cudnn")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The static link set's edge to the static runtime comes first by name.
	if got := depNames(q, "12.4.1", "libcusolver"); got != "cuda_cudart,libcublas,libcusparse,libnvjitlink" {
		t.Errorf("12.4.1 libcusolver deps = %s", got)
	}
	if got := depNames(q, "11.8.0", "libcusolver"); got != "cuda_cudart,libcublas" {
		t.Errorf("11.8.0 libcusolver deps = %s", got)
	}
	libs := q["12.4.1"].Packages["libcusolver"].Files["linux-x86_64"]["shared_lib"]
	if len(libs) == 0 || libs[0].SONAME != "libcusolver.so.11" {
		t.Errorf("libcusolver shared libs = %+v", libs)
	}
	if r := q["12.4.1"].Packages["cuda_nvcc"].Role; r != "both" {
		t.Errorf("cuda_nvcc role = %q, want both", r)
	}
	runtime := false
	for _, d := range q["12.4.1"].Packages["cudnn"].Deps {
		runtime = runtime || d.Name == "cuda_nvrtc" && d.Runtime
	}
	if !runtime {
		t.Errorf("cudnn deps = %+v, want cuda_nvrtc at run time", q["12.4.1"].Packages["cudnn"].Deps)
	}
}

// The example third-party plugin, in its own module, changes the result when
// declared and is refused when its checksum is wrong.
func TestExamplePlugin(t *testing.T) {
	path, sum := buildTool(t, filepath.Join("..", "..", "plugins", "examples", "sitepolicy"), ".", "sitepolicy")
	args := []string{"--cuda", "12.4.1", "--platform", "linux-x86_64", "--capabilities", "8.0,9.0", "--package", "cudnn,cudnn_8_9"}

	before, stderr, code := query(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := before["12.4.1"].Packages["cudnn_8_9"].Unavailable["linux-x86_64"]; len(r) != 0 {
		t.Fatalf("cudnn_8_9 unusable before the policy: %v", r)
	}
	after, stderr, code := query(t, append(args, "--plugin", path+"="+sum)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "site policy (example.com): cuDNN 8.9.7 is older than cuDNN 9, the oldest this site supports"
	if r := after["12.4.1"].Packages["cudnn_8_9"].Unavailable["linux-x86_64"]; len(r) != 1 || r[0] != want {
		t.Errorf("cudnn_8_9 reasons = %q, want %q", r, want)
	}
	if r := after["12.4.1"].Packages["cudnn"].Unavailable["linux-x86_64"]; len(r) != 0 {
		t.Errorf("cudnn 9 unusable: %v", r)
	}
	if f := after["12.4.1"].Packages["cudnn"].Files["linux-x86_64"]["shared_lib"]; len(f) == 0 {
		t.Error("the policy plugin lost the built-in cuDNN knowledge")
	}

	_, stderr, code = query(t, append(args, "--plugin", path+"="+strings.Repeat("0", 64))...)
	if code != 1 || !strings.Contains(stderr, "but it is declared with "+strings.Repeat("0", 64)+": refusing to run it") {
		t.Errorf("wrong checksum: exit %d, stderr %s", code, stderr)
	}

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"plugins", "list", "--manifests", shared.Manifests(t), "--plugin", path + "=" + sum}, &out, &errb, false); code != 0 {
		t.Fatalf("plugins list: exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"NAME", "redist", "cuda", "- (declared: cudnn; taken over)", "sitepolicy", "verified sha256:" + sum, "builtin", "v1"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("plugins list lacks %q:\n%s", w, out.String())
		}
	}
}

// A misbehaving plugin ends the command with exit 1, its error on stderr and
// nothing on stdout.
func TestMisbehavingPluginFromCLI(t *testing.T) {
	path, sum := buildTool(t, ".", "github.com/cudapkgs/cudapkgs/integration/testplugin", "testplugin")
	for _, tt := range []struct {
		mode, want string
	}{
		{"crash", "exited during the call (crashed)"},
		{"hang", "did not answer within 1s"},
		{"garbage", `path "../../etc/passwd"`},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			wrapper := filepath.Join(t.TempDir(), "plugin-"+tt.mode)
			script := "#!/bin/sh\nexec " + path + " " + tt.mode + " cutensor\n"
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(wrapper)
			s := sha256.Sum256(data)
			_ = sum
			_, stderr, code := query(t, "--cuda", "12.4.1", "--platform", "linux-x86_64", "--plugin-timeout", "1s", "--plugin", wrapper+"="+hex.EncodeToString(s[:]))
			if code != 1 || !strings.Contains(stderr, "plugin test-"+tt.mode+": Fixup(CUDA 12.4.1, product cutensor): ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s", code, stderr)
			}
		})
	}
}

// `plugins list` prints nothing a plugin says of itself unchecked: a name
// with terminal escapes, a product that is a path, or a self-description of
// megabytes ends the command with exit 1, one bounded line on stderr that
// names the plugin, the field and what was expected, and nothing on stdout.
func TestPluginsListRefusesBadDescribe(t *testing.T) {
	path, _ := buildTool(t, ".", "github.com/cudapkgs/cudapkgs/integration/testplugin", "testplugin")
	for _, tt := range []struct{ mode, want string }{
		{"describe-escname", `Describe: name "x\x1b]0;pwned\a\x1b[2J": character '\x1b' at byte 1: expected an ASCII letter or digit`},
		{"describe-badproduct", `Describe: product "../../x \"$(id)": character '.' at byte 0: expected an ASCII letter or digit`},
		{"describe-hugename", "Describe: its answer is 8.0 MiB, larger than the 1.0 MiB limit for a Describe answer"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			wrapper := filepath.Join(t.TempDir(), "plugin-"+tt.mode)
			if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+path+" "+tt.mode+" cutensor\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(wrapper)
			s := sha256.Sum256(data)
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"plugins", "list", "--manifests", shared.Manifests(t), "--plugin", wrapper + "=" + hex.EncodeToString(s[:])}, &out, &errb, false)
			stderr := errb.String()
			if code != 1 || out.Len() != 0 {
				t.Fatalf("exit %d, %d bytes on stdout: %.300q", code, out.Len(), out.String())
			}
			if want := "cudapkgs: plugin plugin-" + tt.mode + ": " + tt.want; !strings.HasPrefix(stderr, want) {
				t.Errorf("stderr:\n got %.400s\nwant %s", stderr, want)
			}
			if strings.ContainsAny(stderr, "\x1b\x07") || len(stderr) > 2000 {
				t.Errorf("stderr has raw escapes or is %d bytes: %.300q", len(stderr), stderr)
			}
		})
	}
}

// The plugin's path, the user's own, is printed escaped too: a file name
// with a terminal escape does not reach the terminal raw.
func TestPluginsListEscapesPath(t *testing.T) {
	path, _ := buildTool(t, ".", "github.com/cudapkgs/cudapkgs/integration/testplugin", "testplugin")
	wrapper := filepath.Join(t.TempDir(), "plugin\x1b[2J")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+path+" slow cutensor\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(wrapper)
	s := sha256.Sum256(data)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"plugins", "list", "--manifests", shared.Manifests(t), "--plugin", wrapper + "=" + hex.EncodeToString(s[:])}, &out, &errb, false); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `plugin\x1b[2J`) {
		t.Errorf("plugins list:\n%q", out.String())
	}
}
