package cudapkgs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cudapkgs/cudapkgs/core/stamp"
)

// stampInputs are the inputs known before evaluating: the programs that
// serve the built-in plugins (path, size, modification time: a rebuilt
// cudapkgs regenerates), the workspace root, the configuration file's path
// and every manifest folder of the manifests. Generate hashes them, with
// the caller's own, before the run, so that a manifest changed during the
// run makes the next run regenerate.
func (in Inputs) stampInputs() (stamp.Inputs, error) {
	var list stamp.Inputs
	seen := map[string]bool{}
	for _, s := range in.Builtins {
		if len(s.Command) == 0 || seen[s.Command[0]] {
			continue
		}
		seen[s.Command[0]] = true
		fi, err := os.Stat(s.Command[0])
		if err != nil {
			return nil, err
		}
		list = append(list, stamp.Input{Kind: stamp.Value, Name: "exe", Value: fmt.Sprintf("%q %d %d", s.Command[0], fi.Size(), fi.ModTime().UnixNano())})
	}
	list = append(list,
		stamp.Input{Kind: stamp.Value, Name: "root", Value: in.Workspace},
		stamp.Input{Kind: stamp.Value, Name: "config", Value: in.ConfigPath()},
	)
	for _, l := range in.lockFiles() {
		list = append(list, stamp.Input{Kind: stamp.File, Name: l})
	}
	if in.Manifests != "" || len(in.Sources) == 0 {
		list = append(list, stamp.Input{Kind: stamp.Value, Name: "manifests", Value: in.Manifests})
		return folderInputs(list, in.Manifests, false)
	}
	for _, s := range in.Sources {
		if s.Dir == "" {
			list = append(list, stamp.Input{Kind: stamp.Value, Name: "manifests " + s.Name, Value: "digest " + s.Digest})
			continue
		}
		list = append(list, stamp.Input{Kind: stamp.Value, Name: "manifests " + s.Name, Value: s.Dir})
		var err error
		if list, err = folderInputs(list, s.Dir, s.Optional); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// folderInputs adds every product folder of dir; a missing optional one
// adds nothing (its appearing later changes the digest).
func folderInputs(list stamp.Inputs, dir string, optional bool) (stamp.Inputs, error) {
	entries, err := os.ReadDir(dir)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			list = append(list, stamp.Input{Kind: stamp.Manifests, Name: filepath.Join(dir, e.Name())})
		}
	}
	return list, nil
}

// readInputs are what the evaluation read beyond stampInputs: the Starlark
// modules (absolute paths, in load order), the folders of the
// configuration's own manifests, and the declared plugins.
func (r *Run) readInputs() stamp.Inputs {
	var list stamp.Inputs
	if r.File != nil {
		root := r.Interp.Root()
		for i, m := range r.File.Modules {
			p := filepath.FromSlash(m)
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			if i == 0 {
				p = r.in.ConfigPath()
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			list = append(list, stamp.Input{Kind: stamp.File, Name: p})
		}
		for _, up := range r.File.Products() {
			d := up.Dir
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			list = append(list, stamp.Input{Kind: stamp.Manifests, Name: d})
		}
	}
	for _, p := range r.Config.Plugins() {
		list = append(list, stamp.Input{Kind: stamp.Value, Name: "plugin", Value: p.SHA256 + " " + p.Path})
	}
	return list
}
