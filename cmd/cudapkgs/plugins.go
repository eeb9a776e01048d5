package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/cudss"
	"github.com/cudapkgs/cudapkgs/plugins/cusparselt"
	"github.com/cudapkgs/cudapkgs/plugins/cutensor"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/tensorrt"
)

// builtins are the plugins this binary serves itself, by name. They run out
// of process like any other, through `cudapkgs plugin serve <name>`.
func builtins() map[string]func() sdk.Fixer {
	return map[string]func() sdk.Fixer{
		"redist":     redist.New,
		"cudnn":      cudnn.New,
		"cutensor":   cutensor.New,
		"cusparselt": cusparselt.New,
		"cudss":      cudss.New,
		"tensorrt":   tensorrt.New,
	}
}

func builtinNames() []string {
	var ns []string
	for n := range builtins() {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// pluginCmd is the hidden entry point of the built-in plugins.
func (a *app) pluginCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Hidden: true, Short: "Serve a built-in plugin (started by cudapkgs itself)"}
	cmd.AddCommand(&cobra.Command{
		Use:  "serve NAME",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, ok := builtins()[args[0]]
			if !ok {
				return usagef("no built-in plugin %q: expected one of %s", args[0], strings.Join(builtinNames(), ", "))
			}
			if os.Getenv(sdk.Handshake().MagicCookieKey) == "" {
				return usagef("cudapkgs plugin serve is started by cudapkgs itself, not by hand")
			}
			sdk.Serve(f())
			return nil
		},
	})
	return cmd
}

// self is the command that runs this binary again, for the built-in
// plugins. It keeps the name it was started under (no symlink resolution),
// so a wrapper or test harness that dispatches on its name still works.
func self() (string, error) {
	arg0 := os.Args[0]
	if !strings.ContainsRune(arg0, os.PathSeparator) {
		return exec.LookPath(arg0)
	}
	return filepath.Abs(arg0)
}

// pluginSpecs are the built-ins and the declared third-party plugins.
func pluginSpecs(cfg *config.Config) ([]fixup.Spec, error) {
	exe, err := self()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the built-in plugins: %w", err)
	}
	var specs []fixup.Spec
	for _, n := range builtinNames() {
		specs = append(specs, fixup.Spec{Name: n, Command: []string{exe, "plugin", "serve", n}, Builtin: true})
	}
	for _, p := range cfg.Plugins() {
		specs = append(specs, fixup.Spec{Name: filepath.Base(p.Path), Command: []string{p.Path}, SHA256: p.SHA256})
	}
	return specs, nil
}

func (a *app) startPlugins(ctx context.Context, cfg *config.Config, opts fixup.Options) (*fixup.Host, error) {
	specs, err := pluginSpecs(cfg)
	if err != nil {
		return nil, err
	}
	return fixup.Start(ctx, specs, opts)
}

func (a *app) pluginsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugins", Short: "Inspect the fixup plugins"}
	list := &cobra.Command{
		Use:   "list",
		Short: "Start every plugin and list name, products, protocol version, path and checksum state",
		Args:  cobra.NoArgs,
	}
	f := addConfigFlags(list)
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		h, err := a.startPlugins(cmd.Context(), e.cfg, fixup.Options{CallTimeout: f.pluginTimeout})
		if err != nil {
			return err
		}
		defer h.Close()
		tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPRODUCTS\tPROTOCOL\tPATH\tCHECKSUM")
		for _, p := range h.Plugins() {
			products := strings.Join(p.Serves, ",")
			if products == "" {
				products = "-"
			}
			if len(p.Serves) < len(p.Products) {
				products += " (declared: " + strings.Join(p.Products, ",") + "; taken over)"
			}
			fmt.Fprintf(tw, "%s\t%s\tv%d\t%s\t%s\n", p.Name, products, p.ProtocolVersion, strings.Join(p.Command, " "), p.Checksum)
		}
		return tw.Flush()
	}
	cmd.AddCommand(list)
	return cmd
}
