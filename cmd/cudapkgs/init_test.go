package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// The cudapkgs.star init writes sets exactly what the flags set: evaluated,
// it gives the options the command line gives.
func TestStarTemplateIsTheFlags(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		nil,
		{"--cuda", "12.4.1,12.6", "--capabilities", "8.0,9.0a", "--forward-compat", "--exec", "linux-x86_64",
			"--platform", "linux-x86_64,linux-jetson", "--pin", "cudnn=9", "--pin", "cudnn@12.4=8.9",
			"--mirror", "https://a.example/nvidia", "--mirror", "https://b.example/", "--plugin", "tools/fixup=" + strings.Repeat("ab", 32),
			"--local-cuda", filepath.Join(root, "opt", "cuda"), "--local-components", "cuda_nvcc,cuda_cudart"},
		{"--forward-compat=false", "--local-cuda", "/usr"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := &cobra.Command{Use: "init"}
			f := addConfigFlags(cmd)
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatal(err)
			}
			text, err := starTemplate(f, root, filepath.Join(root, "third_party", "cuda"))
			if err != nil {
				t.Fatal(err)
			}
			star := filepath.Join(root, "cudapkgs.star")
			if err := os.WriteFile(star, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := starlark.NewInterp(root)
			if err != nil {
				t.Fatal(err)
			}
			file, err := in.EvalConfig(context.Background(), star)
			if err != nil {
				t.Fatalf("%s\n%s", starlark.FormatError(err), text)
			}
			var fromFlags, fromFile config.Options
			if err := f.Apply(&fromFlags); err != nil {
				t.Fatal(err)
			}
			if err := file.Apply(&fromFile); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromFlags, fromFile) {
				t.Errorf("flags give %s\nthe file gives %s\n%s", show(fromFlags), show(fromFile), text)
			}
			// Every builtin is there, set or as a commented example.
			for _, opt := range config.Table() {
				if !strings.Contains(text, opt.Builtin+"(") {
					t.Errorf("no %s( in\n%s", opt.Builtin, text)
				}
			}
		})
	}
}

func show(o config.Options) string {
	var b strings.Builder
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer && !fv.IsNil() {
			fv = fv.Elem()
		}
		fmt.Fprintf(&b, "%s=%v ", v.Type().Field(i).Name, fv)
	}
	return b.String()
}

// Twice in a row, init changes no file: not one byte, not one modification
// time; and the second run does not regenerate.
func TestInitTwiceChangesNothing(t *testing.T) {
	manifests := shared.Manifests(t)
	ws := t.TempDir()
	t.Chdir(ws)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	args := []string{"init", "--manifests", manifests, "--cuda", "12.4.1", "--platform", "linux-x86_64,linux-sbsa"}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb, false); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	before := tree(t, ws)
	if len(before) < 10 {
		t.Fatalf("init wrote only %v", before)
	}
	time.Sleep(10 * time.Millisecond) // a rewrite would show in the times
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), args, &out, &errb, false); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	after := tree(t, ws)
	if !reflect.DeepEqual(before, after) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("%s: %s, was %s", k, v, before[k])
			}
		}
		t.Fatalf("the second init changed the workspace")
	}
	if !strings.Contains(errb.String(), "up to date") || !strings.Contains(out.String(), "unchanged") {
		t.Errorf("second run said:\n%s%s", out.String(), errb.String())
	}
}

// tree maps every file below dir to its sha256, size and modification time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel] = fmt.Sprintf("%x %d %s %v", sha256.Sum256(data), st.Size(), st.ModTime().Format(time.RFC3339Nano), st.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
