package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// fetchDirectories reads the Directory messages of an input tree, one tree
// level per round trip. It reads blobs by digest instead of using GetTree so
// that every message is the exact bytes its parent names.
func fetchDirectories(ctx context.Context, cas *casClient, root *repb.Digest) (map[string]*repb.Directory, error) {
	dirs := map[string]*repb.Directory{}
	level := []*repb.Digest{root}
	for len(level) > 0 {
		var small []*repb.Digest
		blobs := map[string][]byte{}
		for _, d := range level {
			if d.SizeBytes > cas.byteStreamThreshold {
				data, err := cas.readBlob(ctx, d)
				if err != nil {
					return nil, err
				}
				blobs[key(d)] = data
			} else {
				small = append(small, d)
			}
		}
		got, err := cas.readBlobs(ctx, small)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			blobs[k] = v
		}
		var next []*repb.Digest
		for _, d := range level {
			dir := &repb.Directory{}
			if err := proto.Unmarshal(blobs[key(d)], dir); err != nil {
				return nil, fmt.Errorf("parse Directory %s: %w", key(d), err)
			}
			dirs[key(d)] = dir
			for _, sub := range dir.Directories {
				if err := checkDigest(sub.Digest); err != nil {
					return nil, fmt.Errorf("directory %q: %w", sub.Name, err)
				}
				if _, ok := dirs[key(sub.Digest)]; !ok {
					dirs[key(sub.Digest)] = nil // queued
					next = append(next, sub.Digest)
				}
			}
		}
		level = next
	}
	return dirs, nil
}

// validName rejects directory entry names that would escape or alias a path.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("invalid name %q in input tree", name)
	}
	return nil
}

// materialize lays out the input tree rooted at root under dst, which must
// exist. Files come from the cache as hardlinks (fetched first if missing);
// it returns the bytes fetched from the CAS.
func materialize(ctx context.Context, cache *fileCache, dirs map[string]*repb.Directory, root *repb.Digest, dst string) (int64, error) {
	// Gather every file first so that fetching happens in few, large batches.
	var keys []cacheKey
	var walk func(d *repb.Digest, depth int) error
	walk = func(d *repb.Digest, depth int) error {
		dir := dirs[key(d)]
		if dir == nil {
			return fmt.Errorf("directory %s not fetched", key(d))
		}
		if depth > 1000 {
			return errors.New("input tree too deep")
		}
		for _, f := range dir.Files {
			if err := checkDigest(f.Digest); err != nil {
				return fmt.Errorf("file %q: %w", f.Name, err)
			}
			keys = append(keys, cacheKey{f.Digest, f.IsExecutable})
		}
		for _, sub := range dir.Directories {
			if err := walk(sub.Digest, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return 0, err
	}
	fetched, err := cache.ensure(ctx, keys)
	if err != nil {
		return fetched, err
	}

	var build func(d *repb.Digest, path string) error
	build = func(d *repb.Digest, path string) error {
		dir := dirs[key(d)]
		for _, f := range dir.Files {
			if err := validName(f.Name); err != nil {
				return err
			}
			if err := linkOrCopy(cache.path(cacheKey{f.Digest, f.IsExecutable}), filepath.Join(path, f.Name)); err != nil {
				return err
			}
		}
		for _, s := range dir.Symlinks {
			if err := validName(s.Name); err != nil {
				return err
			}
			if err := os.Symlink(s.Target, filepath.Join(path, s.Name)); err != nil {
				return fmt.Errorf("input symlink: %w", err)
			}
		}
		for _, sub := range dir.Directories {
			if err := validName(sub.Name); err != nil {
				return err
			}
			p := filepath.Join(path, sub.Name)
			if err := os.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("input directory: %w", err)
			}
			if err := build(sub.Digest, p); err != nil {
				return err
			}
		}
		return nil
	}
	return fetched, build(root, dst)
}

// linkOrCopy hardlinks a cache entry into place. It copies only when the
// kernel refuses the link: too many links to one inode (EMLINK), or the exec
// dir on another filesystem (EXDEV, which main checks against at startup).
func linkOrCopy(src, dst string) error {
	err := os.Link(src, dst)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EMLINK) && !errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("link input: %w", err)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy input: %w", err)
	}
	return out.Close()
}

// outputSpec lists the paths a Command declares as outputs, relative to its
// working directory. REAPI v2.1 output_paths replaces the two legacy lists.
type outputSpec struct {
	path string
	// legacyDir is set for entries of output_directories, to pick the legacy
	// field a symlink is reported in.
	legacy, legacyDir bool
}

func outputSpecs(cmd *repb.Command) []outputSpec {
	var out []outputSpec
	if len(cmd.OutputPaths) > 0 {
		for _, p := range cmd.OutputPaths {
			out = append(out, outputSpec{path: p})
		}
		return out
	}
	for _, p := range cmd.OutputFiles {
		out = append(out, outputSpec{path: p, legacy: true})
	}
	for _, p := range cmd.OutputDirectories {
		out = append(out, outputSpec{path: p, legacy: true, legacyDir: true})
	}
	return out
}

// outputHostPath maps an output path to the host path under execRoot,
// refusing paths that leave the exec root.
func outputHostPath(execRoot, workDir, p string) (string, error) {
	host := filepath.Join(execRoot, workDir, p)
	rel, err := filepath.Rel(execRoot, host)
	if err != nil || !filepath.IsLocal(rel) || filepath.IsAbs(p) {
		return "", fmt.Errorf("output path %q leaves the exec root", p)
	}
	return host, nil
}

// prepareOutputs creates the parent directories of every declared output,
// which REAPI makes the worker's job.
func prepareOutputs(execRoot string, cmd *repb.Command) error {
	for _, o := range outputSpecs(cmd) {
		host, err := outputHostPath(execRoot, cmd.WorkingDirectory, o.path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
			return fmt.Errorf("create output parent: %w", err)
		}
	}
	return nil
}

// collectOutputs records the outputs that exist in the ActionResult and
// returns the blobs to upload for them.
func collectOutputs(execRoot string, cmd *repb.Command, res *repb.ActionResult) ([]uploadItem, error) {
	var items []uploadItem
	for _, o := range outputSpecs(cmd) {
		host, err := outputHostPath(execRoot, cmd.WorkingDirectory, o.path)
		if err != nil {
			return nil, err
		}
		fi, err := os.Lstat(host)
		if errors.Is(err, os.ErrNotExist) {
			continue // outputs are optional; the client decides if that is an error
		}
		if err != nil {
			return nil, err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(host)
			if err != nil {
				return nil, err
			}
			sym := &repb.OutputSymlink{Path: o.path, Target: target}
			switch {
			case !o.legacy:
				res.OutputSymlinks = append(res.OutputSymlinks, sym)
			case o.legacyDir:
				res.OutputDirectorySymlinks = append(res.OutputDirectorySymlinks, sym)
			default:
				res.OutputFileSymlinks = append(res.OutputFileSymlinks, sym)
			}
		case fi.Mode().IsRegular():
			d, err := digestFile(host)
			if err != nil {
				return nil, err
			}
			items = append(items, uploadItem{digest: d, path: host})
			res.OutputFiles = append(res.OutputFiles, &repb.OutputFile{Path: o.path, Digest: d, IsExecutable: fi.Mode()&0o111 != 0})
		case fi.IsDir():
			tree, treeItems, err := buildTree(host)
			if err != nil {
				return nil, err
			}
			data, d, err := digestMessage(tree)
			if err != nil {
				return nil, err
			}
			items = append(items, treeItems...)
			items = append(items, uploadItem{digest: d, data: data})
			res.OutputDirectories = append(res.OutputDirectories, &repb.OutputDirectory{Path: o.path, TreeDigest: d})
		}
	}
	return items, nil
}

// buildTree describes the directory at path as a Tree: the root Directory and
// every Directory below it, each listed once.
func buildTree(path string) (*repb.Tree, []uploadItem, error) {
	var items []uploadItem
	children := map[string]*repb.Directory{}
	var dirMsg func(path string) (*repb.Directory, error)
	dirMsg = func(path string) (*repb.Directory, error) {
		// os.ReadDir sorts by name, byte-wise, as REAPI requires.
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		dir := &repb.Directory{}
		for _, e := range entries {
			p := filepath.Join(path, e.Name())
			switch t := e.Type(); {
			case t&os.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return nil, err
				}
				dir.Symlinks = append(dir.Symlinks, &repb.SymlinkNode{Name: e.Name(), Target: target})
			case t.IsDir():
				sub, err := dirMsg(p)
				if err != nil {
					return nil, err
				}
				_, d, err := digestMessage(sub)
				if err != nil {
					return nil, err
				}
				children[key(d)] = sub
				dir.Directories = append(dir.Directories, &repb.DirectoryNode{Name: e.Name(), Digest: d})
			case t.IsRegular():
				fi, err := e.Info()
				if err != nil {
					return nil, err
				}
				d, err := digestFile(p)
				if err != nil {
					return nil, err
				}
				items = append(items, uploadItem{digest: d, path: p})
				dir.Files = append(dir.Files, &repb.FileNode{Name: e.Name(), Digest: d, IsExecutable: fi.Mode()&0o111 != 0})
			}
			// Sockets, fifos and devices have no REAPI representation: skipped.
		}
		return dir, nil
	}
	root, err := dirMsg(path)
	if err != nil {
		return nil, nil, fmt.Errorf("output directory %s: %w", path, err)
	}
	tree := &repb.Tree{Root: root}
	keys := make([]string, 0, len(children))
	for k := range children {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic Tree bytes, hence a stable digest
	for _, k := range keys {
		tree.Children = append(tree.Children, children[k])
	}
	return tree, items, nil
}

// removeAll deletes an exec dir. Directories the action made read-only are
// made writable first; files are left alone because chmod on a hardlinked
// input would change the cache entry too.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
