package main

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

func (a *app) evalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Print the evaluated configuration as JSON",
		Long: `eval merges the defaults and the flags into the one configuration every
package set reads, validates it against the manifests, and prints it: CUDA
versions, platforms, pins, mirrors and, per CUDA version and target platform, the
GPU capabilities and the nvcc -gencode flags they give, and where the manifests
came from (the download cache, the snapshot built into cudapkgs and its date, or
--manifests), per product and release. Per target, capabilities_from says whether
the capabilities are the defaults or the user's; on defaults, judged lists the
packages judged against only the defaults they support (a release is ruled out
by a capability the user names, never by a default it does not support).`,
		Example: `  cudapkgs eval --cuda 12.4.1 --capabilities 8.0,9.0 --platform linux-x86_64,linux-sbsa
  cudapkgs eval | jq .manifests.sources`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		defer e.Close()
		if err := e.CheckWarnings(); err != nil {
			return err
		}
		return a.printConfig(cmd.Context(), e, f)
	}
	return cmd
}

type jsonTarget struct {
	Capabilities []string `json:"capabilities"`
	// CapabilitiesFrom is "defaults" when the user named no capability of
	// the target's kind, else the layer that named them ("flags", the
	// configuration file).
	CapabilitiesFrom string   `json:"capabilities_from"`
	Gencode          []string `json:"gencode"`
	// Judged: on defaults, the packages judged against fewer than all of
	// them (the defaults each supports), by package name. Binaries still
	// build for every capability above.
	Judged map[string][]string `json:"judged,omitempty"`
}

type jsonConfig struct {
	CUDA          []string                         `json:"cuda"`
	Capabilities  []string                         `json:"capabilities"`
	ForwardCompat bool                             `json:"forward_compat"`
	Exec          string                           `json:"exec"`
	Targets       []string                         `json:"targets"`
	Pins          []string                         `json:"pins"`
	Mirrors       []string                         `json:"mirrors"`
	LocalCUDA     string                           `json:"local_cuda,omitempty"`
	LocalComps    []string                         `json:"local_components,omitempty"`
	PerCUDA       map[string]map[string]jsonTarget `json:"per_cuda"`
	Warnings      []string                         `json:"warnings"`
	// SetBy says, per option, which layer set it: "flags", the
	// configuration file, or "" (its default).
	SetBy map[string]string `json:"set_by"`
	// Manifests says where the manifests came from.
	Manifests jsonManifests `json:"manifests"`
}

// jsonManifests: the sources, in the order they win, and per product and
// release the one that served it.
type jsonManifests struct {
	Sources []jsonSource                 `json:"sources"`
	Served  map[string]map[string]string `json:"served"`
}

// jsonSource is one source: "manifests" (--manifests), "cache" or
// "snapshot" (with its date), and how many releases it served.
type jsonSource struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"`
	Date   string `json:"date,omitempty"`
	Served int    `json:"served"`
}

// sourceManifests is what --manifests serves; sourceConfig the
// configuration's own products (product() in cudapkgs.star).
const (
	sourceManifests = "manifests"
	sourceConfig    = "configuration"
)

// manifestSources lists the run's sources and what each served.
func manifestSources(e *cudapkgs.Run, f *configFlags) (jsonManifests, error) {
	out := jsonManifests{Served: map[string]map[string]string{}}
	count := map[string]int{}
	for _, m := range e.Collection.All() {
		origin := e.Collection.Origin(m)
		switch {
		case origin != "":
		case slices.Contains(e.Unfixed, m.Product):
			origin = sourceConfig
		default:
			origin = sourceManifests
		}
		if out.Served[m.Product] == nil {
			out.Served[m.Product] = map[string]string{}
		}
		out.Served[m.Product][m.Release.String()] = origin
		count[origin]++
	}
	if f.manifests != "" {
		out.Sources = append(out.Sources, jsonSource{Name: sourceManifests, Path: f.manifests, Served: count[sourceManifests]})
	} else {
		srcs, err := cudapkgs.DefaultSources()
		if err != nil {
			return out, err
		}
		for _, s := range srcs {
			js := jsonSource{Name: s.Name, Path: s.Dir, Served: count[s.Name]}
			if s.Name == cudapkgs.SourceSnapshot {
				info, err := snapshot.Embedded()
				if err != nil {
					return out, err
				}
				js.Date = info.Date
			}
			out.Sources = append(out.Sources, js)
		}
	}
	if n := count[sourceConfig]; n > 0 {
		out.Sources = append(out.Sources, jsonSource{Name: sourceConfig, Served: n})
	}
	return out, nil
}

// judged runs the package sets when a target builds default capabilities,
// and returns what each package was judged against there:
// judged[cuda][target][package].
func judged(ctx context.Context, e *cudapkgs.Run) (map[string]map[string]map[string][]string, error) {
	onDefaults := false
	for _, t := range e.Config.Targets() {
		onDefaults = onDefaults || e.Config.CapabilitiesDefaulted(t)
	}
	if !onDefaults {
		return nil, nil
	}
	sets, err := e.Sets(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]map[string][]string{}
	for _, s := range sets {
		per := map[string]map[string][]string{}
		for _, p := range s.Packages {
			for plat, caps := range p.Judged {
				if per[plat] == nil {
					per[plat] = map[string][]string{}
				}
				per[plat][p.Name] = caps
			}
		}
		out[s.CUDA.String()] = per
	}
	return out, nil
}

func (a *app) printConfig(ctx context.Context, e *cudapkgs.Run, f *configFlags) error {
	c := e.Config
	out := jsonConfig{ForwardCompat: c.ForwardCompat(), Exec: c.Exec().Name(), Capabilities: c.ExplicitCapabilities(),
		Pins: []string{}, Mirrors: c.Mirrors(), LocalCUDA: c.LocalCUDA(), LocalComps: c.LocalComponents(), PerCUDA: map[string]map[string]jsonTarget{},
		Warnings: e.Warnings.All(), SetBy: e.SetBy}
	if out.Capabilities == nil {
		out.Capabilities = []string{}
	}
	if out.Mirrors == nil {
		out.Mirrors = []string{}
	}
	var err error
	if out.Manifests, err = manifestSources(e, f); err != nil {
		return err
	}
	for _, p := range c.Pins() {
		out.Pins = append(out.Pins, p.String())
	}
	for _, t := range c.Targets() {
		out.Targets = append(out.Targets, t.Name())
	}
	judgedBy, err := judged(ctx, e)
	if err != nil {
		return err
	}
	for _, v := range c.CUDA() {
		out.CUDA = append(out.CUDA, v.String())
		per := map[string]jsonTarget{}
		for _, t := range c.Targets() {
			caps := c.Capabilities(v, t)
			jt := jsonTarget{Capabilities: c.CapabilityNames(v, t), Gencode: gpu.Gencode(caps, c.ForwardCompat()),
				CapabilitiesFrom: e.SetBy["capabilities"], Judged: judgedBy[v.String()][t.Name()]}
			if c.CapabilitiesDefaulted(t) {
				jt.CapabilitiesFrom = "defaults"
			}
			if jt.Capabilities == nil {
				jt.Capabilities = []string{}
			}
			per[t.Name()] = jt
		}
		out.PerCUDA[v.String()] = per
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(append(b, '\n'))
	return err
}
