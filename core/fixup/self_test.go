package fixup_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// selfServeArg is the argument that makes this test binary serve selfFixer,
// as "cudapkgs plugin serve NAME" makes cudapkgs serve a built-in.
const selfServeArg = "fixup-test-serve-self"

// envSelfHost makes this test binary the host of TestSelfReplacedMidRun; its
// value is the marker file the replacement writes.
const envSelfHost = "FIXUP_TEST_SELF_HOST"

// selfFixer is the plugin this test binary serves as its own built-in.
type selfFixer struct{ product string }

func (f selfFixer) Describe() sdk.Description {
	return sdk.Description{Name: "self-" + f.product, Products: []string{f.product}}
}

func (selfFixer) Fixup(_ context.Context, b *sdk.Batch) (*sdk.Result, error) {
	r := &sdk.Result{}
	for _, p := range b.Packages {
		r.Packages = append(r.Packages, sdk.PackageResult{Name: p.Name})
	}
	return r, nil
}

// serveSelf serves selfFixer when this process was started as a Self plugin.
func serveSelf() bool {
	if len(os.Args) != 3 || os.Args[1] != selfServeArg || os.Getenv(sdk.Handshake().MagicCookieKey) == "" {
		return false
	}
	sdk.Serve(selfFixer{product: os.Args[2]})
	return true
}

// The built-ins run from the host's own bytes: a host whose program file is
// replaced after it started, before its plugins start, by a script that
// writes a marker, still starts and calls its Self plugins, and the script
// never runs.
func TestSelfReplacedMidRun(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host := filepath.Join(dir, "cudapkgs")
	copyFile(t, exe, host)
	marker := filepath.Join(dir, "replacement-ran")
	cmd := exec.Command(host, "-test.run=^$")
	cmd.Env = append(os.Environ(), envSelfHost+"="+marker)
	out, err := cmd.CombinedOutput()
	if _, statErr := os.Stat(marker); statErr == nil {
		data, _ := os.ReadFile(marker)
		t.Errorf("the file put at the host's path ran as a plugin %d times", strings.Count(string(data), "ran"))
	}
	if err != nil || string(out) != "ok\n" {
		t.Fatalf("host: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// runSelfHost is the host of TestSelfReplacedMidRun: it puts a script at
// its own path, then starts two Self plugins by that path (one descriptor
// of its image serves both) and calls one.
func runSelfHost(marker string) {
	fail := func(err error) {
		fmt.Println(err)
		os.Exit(1)
	}
	self := os.Args[0]
	next := self + ".next"
	if err := os.WriteFile(next, []byte("#!/bin/sh\necho ran >> '"+marker+"'\nexit 1\n"), 0o755); err != nil {
		fail(err)
	}
	if err := os.Rename(next, self); err != nil {
		fail(err)
	}
	var specs []fixup.Spec
	for _, product := range []string{"cudnn", "cutensor"} {
		specs = append(specs, fixup.Spec{Name: product, Command: []string{self, selfServeArg, product}, Builtin: true, Self: true})
	}
	h, err := fixup.Start(context.Background(), specs, fast)
	if err != nil {
		fail(err)
	}
	_, err = h.Call(context.Background(), batch(10))
	h.Close()
	if err != nil {
		fail(err)
	}
	fmt.Println("ok")
}
