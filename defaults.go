package cudapkgs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/snapshot"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// Where a release came from when the default sources served it
// (Collection.Origin).
const (
	SourceCache    = "cache"
	SourceSnapshot = "snapshot"
)

// WithDefaults is in with what its zero fields mean filled in, as the
// command line has them, so that a Go caller gets what the CLI gets:
//
//   - Workspace "": the nearest folder up from the working folder that
//     looks like a workspace (WorkspaceRoot); a relative one made absolute.
//   - Manifests "" and no Sources: DefaultSources, the download cache
//     merged over the snapshot built into cudapkgs.
//   - Lock "": cudapkgs.lock in the Manifests folder, or, for Sources, at
//     the workspace root, when there is one (`manifests fetch` writes it
//     there for the cache).
//   - Builtins nil: BuiltinSpecs, the built-in plugins served by this
//     program again. An empty, non-nil list starts none.
//
// Evaluate, Plugins and Generate apply it; applying it twice changes
// nothing.
func (in Inputs) WithDefaults() (Inputs, error) {
	root, err := WorkspaceRoot(in.Workspace)
	if err != nil {
		return Inputs{}, err
	}
	in.Workspace = root
	if in.Manifests == "" && len(in.Sources) == 0 {
		if in.Sources, err = DefaultSources(); err != nil {
			return Inputs{}, err
		}
	}
	if in.Lock == "" {
		// A --manifests folder is checked against its own lock and the
		// workspace's, each when there is one: pointing it at the download
		// cache must not step around the workspace's pins (issue 24).
		ws := filepath.Join(in.Workspace, source.LockFileName)
		if _, err := os.Stat(ws); err != nil {
			ws = ""
		}
		own := ""
		if in.Manifests != "" {
			own = filepath.Join(in.Manifests, source.LockFileName)
			if _, err := os.Stat(own); err != nil {
				own = ""
			}
		}
		switch {
		case own != "" && ws != "" && !sameFile(own, ws):
			in.Lock, in.WorkspaceLock = own, ws
		case own != "":
			in.Lock = own
		default:
			in.Lock = ws
		}
	}
	if in.Builtins == nil {
		if in.Builtins, err = BuiltinSpecs(); err != nil {
			return Inputs{}, err
		}
	}
	return in, nil
}

// WorkspaceRoot is dir made absolute, or, when dir is "", the nearest
// folder up from the working folder with MODULE.bazel, WORKSPACE,
// WORKSPACE.bazel or cudapkgs.star, else the working folder.
func WorkspaceRoot(dir string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		for _, marker := range []string{"MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel", starlark.DefaultConfigFile} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, nil
			}
		}
		if filepath.Dir(dir) == dir {
			return wd, nil
		}
	}
}

// DefaultSources are the download cache, when there is one, merged over
// the snapshot built into this binary: the cache wins per (product,
// release).
func DefaultSources() ([]ManifestSource, error) {
	var srcs []ManifestSource
	if dir := cacheDir(); dir != "" {
		srcs = append(srcs, ManifestSource{Name: SourceCache, Dir: dir, Optional: true})
	}
	info, err := snapshot.Embedded()
	if err != nil {
		return nil, fmt.Errorf("the snapshot built into cudapkgs: %w", err)
	}
	pins, err := snapshot.Lock()
	if err != nil {
		return nil, fmt.Errorf("the snapshot built into cudapkgs: %w", err)
	}
	// The snapshot's lock guards its releases against a cached copy that
	// no lock of the run pins (ManifestSource.Pins).
	pins.Path = "the snapshot's " + snapshot.LockFile
	return append(srcs, ManifestSource{Name: SourceSnapshot, FS: snapshot.FS, Digest: info.ArchiveSHA256, Pins: pins}), nil
}

// sameFile reports whether a and b are one file (the workspace is the
// --manifests folder).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// cacheDir is the download cache when it exists.
func cacheDir() string {
	dir, err := source.DefaultCacheDir()
	if err != nil {
		return ""
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}

// The arguments that follow this program's path in the command that starts
// a built-in plugin, before the plugin's name.
const (
	builtinCommand    = "plugin"
	builtinSubcommand = "serve"
)

// BuiltinSpecs start the built-in plugins as this program again, all in
// one process (fixup.Spec.Process, builtin.Shared), with the arguments
// "plugin serve NAME,NAME,...": the cudapkgs command serves them that way,
// and a Go program that uses the default Builtins does so with
// ServeBuiltin. The program keeps the name it was started under (no symlink
// resolution), so a wrapper that dispatches on its name still works. The
// specs carry each built-in's Describe, so that a run that has no package
// of a built-in product starts no process at all, and each built-in keeps
// its name in messages. The specs are Self: on Linux the host runs them
// from its own image, not from that path again, so that replacing the file
// during a run runs nothing else.
func BuiltinSpecs() ([]fixup.Spec, error) {
	exe, err := self()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the built-in plugins: %w", err)
	}
	names := builtin.Names()
	command := []string{exe, builtinCommand, builtinSubcommand, strings.Join(names, ",")}
	var specs []fixup.Spec
	for _, n := range names {
		specs = append(specs, fixup.Spec{Name: n, Command: command, Builtin: true, Self: true,
			Describe: builtinDescribe(n), Process: builtin.Shared})
	}
	return specs, nil
}

// builtinDescribe is the built-in plugin name's answer to Describe, given in
// this process (fixup.Spec.Describe): the host starts the plugin only when
// the run has a batch of its products.
func builtinDescribe(name string) func() sdk.Description {
	return func() sdk.Description { return builtin.Plugins()[name]().Describe() }
}

func self() (string, error) {
	arg0 := os.Args[0]
	if !strings.ContainsRune(arg0, os.PathSeparator) {
		return exec.LookPath(arg0)
	}
	return filepath.Abs(arg0)
}

// ServeBuiltin serves the built-in plugins this process was started as by
// BuiltinSpecs (args, without the program, are "plugin serve NAME[,NAME...]",
// and the plugin handshake's cookie is set) and reports whether it did. A program
// that leaves Inputs.Builtins nil calls it first in main:
//
//	if cudapkgs.ServeBuiltin(os.Args[1:]) {
//		return
//	}
func ServeBuiltin(args []string) bool {
	if os.Getenv(sdk.Handshake().MagicCookieKey) == "" || len(args) != 3 || args[0] != builtinCommand || args[1] != builtinSubcommand {
		return false
	}
	f, err := builtin.Fixer(args[2])
	if err != nil {
		return false
	}
	sdk.Serve(f)
	return true
}
