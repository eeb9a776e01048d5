package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// pluginCmd is the hidden entry point of the built-in plugins.
func (a *app) pluginCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Hidden: true, Short: "Serve a built-in plugin (started by cudapkgs itself)"}
	cmd.AddCommand(&cobra.Command{
		Use:  "serve NAME[,NAME...]",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := builtin.Fixer(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			if os.Getenv(sdk.Handshake().MagicCookieKey) == "" {
				return usagef("cudapkgs plugin serve is started by cudapkgs itself, not by hand")
			}
			sdk.Serve(f)
			return nil
		},
	})
	return cmd
}

func (a *app) pluginsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugins", Short: "Inspect the fixup plugins",
		Example: `  cudapkgs plugins list`}
	list := &cobra.Command{
		Use:   "list",
		Short: "Start every plugin and list name, products, protocol version, path and checksum state",
		Long: `list starts the built-in plugins and those the configuration declares (--plugin,
plugin() in cudapkgs.star), asks each to describe itself, and lists them. It reads no
manifest.`,
		Example: `  cudapkgs plugins list
  cudapkgs plugins list --plugin ./my-fixups=$(sha256sum my-fixups | cut -d' ' -f1)`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(list)
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		// The configuration names the plugins; no manifest is read.
		in, err := f.inputs(a)
		if err != nil {
			return err
		}
		plugins, err := cudapkgs.Plugins(cmd.Context(), in)
		var ce *cudapkgs.ConfigError
		if errors.As(err, &ce) {
			return usageError{ce.Err}
		}
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPRODUCTS\tPROTOCOL\tPATH\tCHECKSUM")
		for _, p := range plugins {
			products := strings.Join(p.Serves, ",")
			if products == "" {
				products = "-"
			}
			if len(p.Serves) < len(p.Products) {
				products += " (declared: " + strings.Join(p.Products, ",") + "; taken over)"
			}
			// The host checked the names (core/fixup's checkDescription);
			// every cell is escaped all the same, the path (the user's
			// own) included: no byte reaches the terminal raw, and a tab
			// cannot shift the columns.
			cells := []string{p.Name, products, fmt.Sprintf("v%d", p.ProtocolVersion), strings.Join(p.Command, " "), p.Checksum}
			for i, c := range cells {
				cells[i] = escapeText(c, false)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		return tw.Flush()
	}
	cmd.AddCommand(list)
	return cmd
}
