package cudapkgs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cudapkgs/cudapkgs/core/outdir"
)

// StampInputs are the inputs known before evaluating: the workspace root,
// the configuration file's path and every manifest folder of Manifests. A
// caller adds its own (its binary, its flags) and hashes them before the
// run, so that a manifest changed during the run makes the next run
// regenerate.
func (in Inputs) StampInputs() (outdir.Inputs, error) {
	list := outdir.Inputs{
		{Kind: outdir.Value, Name: "root", Value: in.Workspace},
		{Kind: outdir.Value, Name: "config", Value: in.ConfigPath()},
	}
	if in.Lock != "" {
		list = append(list, outdir.Input{Kind: outdir.File, Name: in.Lock})
	}
	if in.Manifests != "" || len(in.Sources) == 0 {
		list = append(list, outdir.Input{Kind: outdir.Value, Name: "manifests", Value: in.Manifests})
		return folderInputs(list, in.Manifests, false)
	}
	for _, s := range in.Sources {
		if s.Dir == "" {
			list = append(list, outdir.Input{Kind: outdir.Value, Name: "manifests " + s.Name, Value: "digest " + s.Digest})
			continue
		}
		list = append(list, outdir.Input{Kind: outdir.Value, Name: "manifests " + s.Name, Value: s.Dir})
		var err error
		if list, err = folderInputs(list, s.Dir, s.Optional); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// folderInputs adds every product folder of dir; a missing optional one
// adds nothing (its appearing later changes the digest).
func folderInputs(list outdir.Inputs, dir string, optional bool) (outdir.Inputs, error) {
	entries, err := os.ReadDir(dir)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return list, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			list = append(list, outdir.Input{Kind: outdir.Manifests, Name: filepath.Join(dir, e.Name())})
		}
	}
	return list, nil
}

// ReadInputs are what the evaluation read beyond StampInputs: the Starlark
// modules (absolute paths, in load order), the folders of the
// configuration's own manifests, and the declared plugins.
func (r *Run) ReadInputs() outdir.Inputs {
	var list outdir.Inputs
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
			list = append(list, outdir.Input{Kind: outdir.File, Name: p})
		}
		for _, up := range r.File.Products() {
			d := up.Dir
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			list = append(list, outdir.Input{Kind: outdir.Manifests, Name: d})
		}
	}
	for _, p := range r.Config.Plugins() {
		list = append(list, outdir.Input{Kind: outdir.Value, Name: "plugin", Value: p.SHA256 + " " + p.Path})
	}
	return list
}
