// Command testplugin is a plugin that misbehaves on request, for the host's
// tests: testplugin MODE [PRODUCT...]. It is never shipped.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

type fixer struct {
	mode     string
	products []string
	log      hclog.Logger
}

func (f *fixer) Describe() sdk.Description {
	d := sdk.Description{Name: "test-" + f.mode, Products: f.products}
	// Self-descriptions the host must refuse before printing or using them.
	switch f.mode {
	case "describe-badname":
		d.Name = `../../x "$(id)`
	case "describe-escname":
		d.Name = "x\x1b]0;pwned\x07\x1b[2J"
	case "describe-longname":
		d.Name = strings.Repeat("n", 200)
	case "describe-hugename":
		d.Name = strings.Repeat("n", 8<<20)
	case "describe-badproduct":
		d.Products = append(d.Products, `../../x "$(id)`)
	case "describe-dupproduct":
		d.Products = append(d.Products, d.Products[0])
	case "describe-escfact":
		d.Facts = []sdk.ProductFacts{{Product: f.products[0], Base: "https://example.com/\x1b[31m", Path: "pub"}}
	case "describe-longfact":
		d.Facts = []sdk.ProductFacts{{Product: f.products[0], Base: "https://" + strings.Repeat("a", 2000), Path: "pub"}}
	case "describe-badrename":
		d.Renames = []sdk.Rename{{Package: "x\u202ey", Replaces: "z", Since: "13.0"}}
	}
	if f.mode == "product" {
		// A third party's own product, described as a built-in describes
		// its: where its archives are published.
		for _, p := range f.products {
			d.Facts = append(d.Facts, sdk.ProductFacts{Product: p, Base: "https://" + p + ".example", Path: "pub/" + p})
		}
	}
	return d
}

func (f *fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	f.log.Info("fixup", "cuda", b.CUDA, "product", b.Product, "packages", len(b.Packages))
	r := &sdk.Result{}
	for _, p := range b.Packages {
		r.Packages = append(r.Packages, sdk.PackageResult{Name: p.Name})
	}
	switch f.mode {
	case "product":
		for i, p := range b.Packages {
			pr := map[string]sdk.PlatformResult{}
			for _, a := range p.Archives {
				so := "lib" + b.Product + ".so.1"
				pr[a.Platform] = sdk.PlatformResult{Files: []sdk.File{
					{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
					{Path: "lib/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so},
				}}
			}
			r.Packages[i].Platforms = pr
		}
	case "crash":
		f.log.Error("about to dereference a nil map entry")
		var m map[string]*sdk.Batch
		_ = m["x"].CUDA // nil pointer dereference: the process dies
	case "hang":
		f.log.Warn("hanging forever")
		select {}
	case "slow":
		time.Sleep(20 * time.Millisecond)
	case "exit0":
		// Stops serving, cleanly, in the middle of a call.
		os.Exit(0)
	case "garbage":
		if len(r.Packages) > 0 && len(p0(b).Archives) > 0 {
			r.Packages[0].Platforms = map[string]sdk.PlatformResult{p0(b).Archives[0].Platform: {
				Files: []sdk.File{{Path: "../../etc/passwd", Kind: sdk.Data, Role: sdk.Target}}}}
		}
	case "unknown":
		r.Packages = append(r.Packages, sdk.PackageResult{Name: "no_such_package"})
	case "missingdep":
		if len(r.Packages) > 0 {
			r.Packages[0].Deps = []sdk.Dep{{Package: "libdoesnotexist"}}
		}
	case "cycle":
		if b.Product == "cuda" && len(r.Packages) > 1 {
			r.Packages[0].Deps = []sdk.Dep{{Package: b.Packages[1].Manifest}}
			r.Packages[1].Deps = []sdk.Dep{{Package: b.Packages[0].Manifest}}
		}
	case "huge":
		// Far past what a host accepts: an answer it must refuse, not buffer.
		blob := strings.Repeat("x", 1<<20)
		var reasons []string
		for i := 0; i < 80; i++ {
			reasons = append(reasons, blob)
		}
		if len(r.Packages) > 0 {
			r.Packages[0].Platforms = map[string]sdk.PlatformResult{b.Config.Targets[0]: {Unusable: reasons}}
		}
	}
	return r, nil
}

func p0(b *sdk.Batch) sdk.Package { return b.Packages[0] }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testplugin MODE [PRODUCT...]")
		os.Exit(2)
	}
	mode := os.Args[1]
	products := os.Args[2:]
	if len(products) == 0 {
		// Every built-in product, from the built-ins themselves: a new
		// product touches no list here (docs/plugin-authoring.md).
		for _, f := range builtin.Fixers() {
			products = append(products, f.Describe().Products...)
		}
	}
	if dir := os.Getenv("TESTPLUGIN_PIDDIR"); dir != "" {
		// For the tests that look for orphans: which processes to watch.
		pid := strconv.Itoa(os.Getpid())
		if err := os.WriteFile(filepath.Join(dir, pid), []byte(pid), 0o644); err != nil {
			panic(err)
		}
	}
	switch mode {
	case "sleeper":
		// The child a plugin leaves behind, holding its stdout and stderr.
		time.Sleep(time.Hour)
		return
	case "childserve", "childexit", "childhang":
		// A plugin that starts a child which inherits its stdout and
		// stderr, then serves, exits at once or hangs before its handshake.
		child := exec.Command(os.Args[0], "sleeper")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if os.Getenv("TESTPLUGIN_CHILD_DETACHED") != "" {
			// A daemon: out of the plugin's process group, which the
			// host can end; it still holds the plugin's stdout and stderr.
			detach(child)
		}
		if err := child.Start(); err != nil {
			panic(err)
		}
		if f := os.Getenv("TESTPLUGIN_CHILDPID"); f != "" {
			if err := os.WriteFile(f, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
				panic(err)
			}
		}
		switch mode {
		case "childexit":
			fmt.Fprintln(os.Stderr, "testplugin: cannot start, leaving a child behind")
			os.Exit(3)
		case "childhang":
			select {}
		}
	case "hangstart":
		// Hangs before its handshake.
		fmt.Fprintln(os.Stderr, "testplugin: waiting for a lock that never comes")
		select {}
	case "longline":
		// One unterminated 24 MB line on stderr, then an exit.
		os.Stderr.Write(bytes.Repeat([]byte("x"), 24<<20))
		os.Exit(3)
	case "exit":
		fmt.Fprintln(os.Stderr, "testplugin: cannot start: /etc/site-policy.json is missing")
		os.Exit(3)
	case "noise":
		fmt.Println("hello from a program that is not a plugin")
		os.Exit(0)
	case "v2":
		hs := sdk.Handshake()
		hs.ProtocolVersion = 2
		f := &fixer{mode: mode, products: products, log: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, JSONFormat: true})}
		plugin.Serve(&plugin.ServeConfig{HandshakeConfig: hs, Plugins: sdk.PluginSet(f), GRPCServer: plugin.DefaultGRPCServer})
		return
	}
	sdk.Serve(&fixer{mode: mode, products: products, log: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, JSONFormat: true, Name: "test-" + mode})})
}
