package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// checkFile asserts a materialized file's content and permission bits.
func checkFile(t *testing.T, path, want string, mode os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s mode = %v, want %v", path, fi.Mode().Perm(), mode)
	}
}

func TestMaterialize(t *testing.T) {
	tests := []struct {
		name string
		// tree uploads blobs and returns the input root; setup may tweak the env.
		tree  func(t *testing.T, e *testEnv) *repb.Digest
		check func(t *testing.T, e *testEnv, dir string, fetched int64)
		// wantErr, if set, is checked instead of check.
		wantErr func(error) bool
	}{
		{
			name: "files, executables, symlinks, nested dirs",
			tree: func(t *testing.T, e *testEnv) *repb.Digest {
				leaf := e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("deep.txt", e.cas.put([]byte("deep")), false)}})
				mid := e.cas.putProto(t, &repb.Directory{Directories: []*repb.DirectoryNode{dirNode("c", leaf)}})
				bin := e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("tool", e.cas.put([]byte("#!/bin/sh\n")), true)}})
				return e.cas.putProto(t, &repb.Directory{
					Files: []*repb.FileNode{
						file("a.txt", e.cas.put([]byte("hello")), false),
						file("empty", digestOf(nil), false),
					},
					Directories: []*repb.DirectoryNode{dirNode("a", mid), dirNode("bin", bin), dirNode("emptydir", e.cas.putProto(t, &repb.Directory{}))},
					Symlinks:    []*repb.SymlinkNode{{Name: "link", Target: "a.txt"}, {Name: "abs", Target: "/nonexistent/x"}},
				})
			},
			check: func(t *testing.T, e *testEnv, dir string, fetched int64) {
				checkFile(t, filepath.Join(dir, "a.txt"), "hello", 0o444)
				checkFile(t, filepath.Join(dir, "empty"), "", 0o444)
				checkFile(t, filepath.Join(dir, "a/c/deep.txt"), "deep", 0o444)
				checkFile(t, filepath.Join(dir, "bin/tool"), "#!/bin/sh\n", 0o555)
				if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "a.txt" {
					t.Errorf("link -> %q, %v", target, err)
				}
				if target, err := os.Readlink(filepath.Join(dir, "abs")); err != nil || target != "/nonexistent/x" {
					t.Errorf("abs -> %q, %v", target, err)
				}
				if fi, err := os.Stat(filepath.Join(dir, "emptydir")); err != nil || !fi.IsDir() {
					t.Errorf("emptydir: %v", err)
				}
				if want := int64(len("hello") + len("deep") + len("#!/bin/sh\n")); fetched != want {
					t.Errorf("fetched %d bytes, want %d", fetched, want)
				}
			},
		},
		{
			name: "same content executable and not: two cache entries, one fetch",
			tree: func(t *testing.T, e *testEnv) *repb.Digest {
				d := e.cas.put([]byte("shared"))
				return e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("plain", d, false), file("run", d, true)}})
			},
			check: func(t *testing.T, e *testEnv, dir string, fetched int64) {
				checkFile(t, filepath.Join(dir, "plain"), "shared", 0o444)
				checkFile(t, filepath.Join(dir, "run"), "shared", 0o555)
				d := digestOf([]byte("shared"))
				if n := e.cas.reads[key(d)]; n != 1 {
					t.Errorf("blob read %d times, want 1", n)
				}
				for _, exec := range []bool{false, true} {
					if !e.cache.has(cacheKey{d, exec}) {
						t.Errorf("no cache entry for exec=%v", exec)
					}
				}
			},
		},
		{
			name: "large blobs come by ByteStream",
			tree: func(t *testing.T, e *testEnv) *repb.Digest {
				// Above the threshold, unlike the Directory message.
				e.cc.byteStreamThreshold = 250
				return e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{
					file("big", e.cas.put([]byte(strings.Repeat("0123456789", 30))), false),
					file("small", e.cas.put([]byte("tiny")), false),
				}})
			},
			check: func(t *testing.T, e *testEnv, dir string, fetched int64) {
				checkFile(t, filepath.Join(dir, "big"), strings.Repeat("0123456789", 30), 0o444)
				checkFile(t, filepath.Join(dir, "small"), "tiny", 0o444)
				if e.cas.streamReads != 1 {
					t.Errorf("%d ByteStream reads, want 1", e.cas.streamReads)
				}
			},
		},
		{
			name: "missing file blob",
			tree: func(t *testing.T, e *testEnv) *repb.Digest {
				return e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("gone", digestOf([]byte("never uploaded")), false)}})
			},
			wantErr: func(err error) bool {
				var m *missingBlobsError
				return errors.As(err, &m) && len(m.digests) == 1
			},
		},
		{
			name: "name escaping the directory",
			tree: func(t *testing.T, e *testEnv) *repb.Digest {
				return e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("../evil", e.cas.put([]byte("x")), false)}})
			},
			wantErr: func(err error) bool { return err != nil },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			root := tc.tree(t, e)
			dir := t.TempDir()
			ctx := context.Background()
			dirs, err := fetchDirectories(ctx, e.cc, root)
			var fetched int64
			if err == nil {
				fetched, err = materialize(ctx, e.cache, dirs, root, dir)
			}
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("materialize: unexpected error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, e, dir, fetched)
		})
	}
}

// TestMaterializeReusesCache checks that a second action sharing an input
// fetches nothing and gets a hardlink to the same cache inode.
func TestMaterializeReusesCache(t *testing.T) {
	e := newTestEnv(t)
	e.cc.byteStreamThreshold = 8 // the "archive" goes by ByteStream
	archive := e.cas.put([]byte("pretend this is a 700 MB archive"))
	root := e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("cuda.tar.xz", archive, false)}})
	ctx := context.Background()
	dirs, err := fetchDirectories(ctx, e.cc, root)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, wantFetched := range []int64{archive.SizeBytes, 0} {
		dir := filepath.Join(e.cache.dir, "exec", string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		fetched, err := materialize(ctx, e.cache, dirs, root, dir)
		if err != nil {
			t.Fatal(err)
		}
		if fetched != wantFetched {
			t.Errorf("action %d fetched %d bytes, want %d", i, fetched, wantFetched)
		}
		paths = append(paths, filepath.Join(dir, "cuda.tar.xz"))
	}
	if n := e.cas.reads[key(archive)]; n != 1 {
		t.Errorf("archive read %d times, want 1", n)
	}
	cached, err := os.Stat(e.cache.path(cacheKey{archive, false}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(fi, cached) {
			t.Errorf("%s is not a hardlink of the cache entry", p)
		}
	}
}

func TestCollectOutputs(t *testing.T) {
	// layout creates the files an action would have produced under dir.
	layout := func(t *testing.T, dir string) {
		t.Helper()
		must := func(err error) {
			if err != nil {
				t.Helper()
				t.Fatal(err)
			}
		}
		must(os.MkdirAll(filepath.Join(dir, "wd/out/tree/sub"), 0o755))
		must(os.WriteFile(filepath.Join(dir, "wd/out/lib.a"), []byte("archive"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "wd/out/tool"), []byte("binary"), 0o755))
		must(os.WriteFile(filepath.Join(dir, "wd/out/tree/a.h"), []byte("header"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "wd/out/tree/sub/b.h"), []byte("header b"), 0o755))
		must(os.Symlink("a.h", filepath.Join(dir, "wd/out/tree/link.h")))
		must(os.Symlink("lib.a", filepath.Join(dir, "wd/out/alias")))
	}
	tests := []struct {
		name  string
		cmd   *repb.Command
		check func(t *testing.T, e *testEnv, res *repb.ActionResult)
	}{
		{
			name: "output_paths",
			cmd: &repb.Command{WorkingDirectory: "wd", OutputPaths: []string{
				"out/lib.a", "out/tool", "out/tree", "out/alias", "out/missing",
			}},
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				if len(res.OutputFiles) != 2 {
					t.Fatalf("output files: %v", res.OutputFiles)
				}
				if f := res.OutputFiles[0]; f.Path != "out/lib.a" || f.IsExecutable || key(f.Digest) != key(digestOf([]byte("archive"))) {
					t.Errorf("lib.a: %v", f)
				}
				if f := res.OutputFiles[1]; f.Path != "out/tool" || !f.IsExecutable {
					t.Errorf("tool: %v", f)
				}
				if len(res.OutputSymlinks) != 1 || res.OutputSymlinks[0].Path != "out/alias" || res.OutputSymlinks[0].Target != "lib.a" {
					t.Errorf("symlinks: %v", res.OutputSymlinks)
				}
				if len(res.OutputFileSymlinks) != 0 {
					t.Errorf("legacy symlinks set with output_paths: %v", res.OutputFileSymlinks)
				}
				if len(res.OutputDirectories) != 1 {
					t.Fatalf("output dirs: %v", res.OutputDirectories)
				}
				checkTree(t, e, res.OutputDirectories[0].TreeDigest)
			},
		},
		{
			name: "legacy output_files and output_directories",
			cmd:  &repb.Command{WorkingDirectory: "wd", OutputFiles: []string{"out/lib.a", "out/alias"}, OutputDirectories: []string{"out/tree"}},
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				if len(res.OutputFiles) != 1 || len(res.OutputDirectories) != 1 {
					t.Errorf("files %v dirs %v", res.OutputFiles, res.OutputDirectories)
				}
				if len(res.OutputFileSymlinks) != 1 || len(res.OutputSymlinks) != 0 {
					t.Errorf("file symlinks %v, symlinks %v", res.OutputFileSymlinks, res.OutputSymlinks)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			dir := t.TempDir()
			layout(t, dir)
			res := &repb.ActionResult{}
			items, err := collectOutputs(dir, tc.cmd, res)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.cc.upload(context.Background(), items); err != nil {
				t.Fatal(err)
			}
			tc.check(t, e, res)
		})
	}
}

// checkTree fetches an output Tree from the fake CAS and checks it describes
// out/tree: every file uploaded, children consistent with the digests.
func checkTree(t *testing.T, e *testEnv, d *repb.Digest) {
	t.Helper()
	data, ok := e.cas.get(d)
	if !ok {
		t.Fatal("tree not uploaded")
	}
	tree := &repb.Tree{}
	if err := proto.Unmarshal(data, tree); err != nil {
		t.Fatal(err)
	}
	root := tree.Root
	if len(root.Files) != 1 || root.Files[0].Name != "a.h" || len(root.Symlinks) != 1 || root.Symlinks[0].Target != "a.h" {
		t.Fatalf("tree root: %v", root)
	}
	if len(root.Directories) != 1 || root.Directories[0].Name != "sub" {
		t.Fatalf("tree root dirs: %v", root.Directories)
	}
	if len(tree.Children) != 1 {
		t.Fatalf("tree children: %v", tree.Children)
	}
	_, childDigest, _ := digestMessage(tree.Children[0])
	if key(childDigest) != key(root.Directories[0].Digest) {
		t.Errorf("child digest %s, root names %s", key(childDigest), key(root.Directories[0].Digest))
	}
	b := tree.Children[0].Files[0]
	if b.Name != "b.h" || !b.IsExecutable {
		t.Errorf("sub/b.h: %v", b)
	}
	for _, f := range []*repb.FileNode{root.Files[0], b} {
		if _, ok := e.cas.get(f.Digest); !ok {
			t.Errorf("%s not uploaded", f.Name)
		}
	}
}

func TestOutputHostPath(t *testing.T) {
	tests := []struct {
		wd, path string
		ok       bool
	}{
		{"", "out/a", true},
		{"wd", "out/a", true},
		{"wd", "../x", true}, // relative to wd, still in the exec root
		{"", "../x", false},
		{"wd", "a/../../../x", false},
		{"", "/abs", false},
	}
	for _, tc := range tests {
		_, err := outputHostPath("/exec", tc.wd, tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("outputHostPath(wd %q, %q) error = %v, want ok=%v", tc.wd, tc.path, err, tc.ok)
		}
	}
}
