// Package builtin lists the plugins the cudapkgs binary serves itself. A
// new product is its plugin's package plus one line here.
package builtin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/fixup"

	"github.com/cudapkgs/cudapkgs/plugins/cublasmp"
	"github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/cudss"
	"github.com/cudapkgs/cudapkgs/plugins/cufftmp"
	"github.com/cudapkgs/cudapkgs/plugins/cusolvermp"
	"github.com/cudapkgs/cudapkgs/plugins/cusparselt"
	"github.com/cudapkgs/cudapkgs/plugins/cutensor"
	"github.com/cudapkgs/cudapkgs/plugins/nccl"
	"github.com/cudapkgs/cudapkgs/plugins/nppplus"
	"github.com/cudapkgs/cudapkgs/plugins/nvcomp"
	"github.com/cudapkgs/cudapkgs/plugins/nvjpeg2000"
	"github.com/cudapkgs/cudapkgs/plugins/nvpl"
	"github.com/cudapkgs/cudapkgs/plugins/nvshmem"
	"github.com/cudapkgs/cudapkgs/plugins/nvtiff"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/tensorrt"
)

// Plugins are the built-in plugins by name.
func Plugins() map[string]func() sdk.Fixer {
	return map[string]func() sdk.Fixer{
		"redist":     redist.New,
		"cudnn":      cudnn.New,
		"cutensor":   cutensor.New,
		"cusparselt": cusparselt.New,
		"cudss":      cudss.New,
		"tensorrt":   tensorrt.New,
		"nvtiff":     nvtiff.New,
		"nvpl":       nvpl.New,
		"nppplus":    nppplus.New,
		"nvjpeg2000": nvjpeg2000.New,
		"nvcomp":     nvcomp.New,
		"cusolvermp": cusolvermp.New,
		"cublasmp":   cublasmp.New,
		"nccl":       nccl.New,
		"nvshmem":    nvshmem.New,
		"cufftmp":    cufftmp.New,
	}
}

// Names are the built-ins' names, sorted.
func Names() []string {
	var ns []string
	for n := range Plugins() {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Products are the built-in products as their plugins describe them,
// checked and converted by the host's code (fixup.ProductsOf), the toolkit
// first and the others by name. Tests and tools that need the products
// without starting processes read them here; a run asks the running
// plugins.
func Products() (fixup.Products, error) {
	var ds []sdk.Description
	for _, n := range Names() {
		ds = append(ds, Plugins()[n]().Describe())
	}
	return fixup.ProductsOf(ds...)
}

// Fixers are a new instance of every built-in, in name order.
func Fixers() []sdk.Fixer {
	var out []sdk.Fixer
	for _, n := range Names() {
		out = append(out, Plugins()[n]())
	}
	return out
}

// Shared is the name of the one process that serves every built-in a run
// needs (fixup.Spec.Process): one start instead of one per product.
const Shared = "builtins"

// Fixer is what `cudapkgs plugin serve ARG` serves: ARG is one built-in's
// name, or several joined by commas, which one process serves merged as
// Shared (sdk.Merge), in the order given.
func Fixer(arg string) (sdk.Fixer, error) {
	names := strings.Split(arg, ",")
	var fs []sdk.Fixer
	for _, n := range names {
		f, ok := Plugins()[n]
		if !ok {
			return nil, fmt.Errorf("no built-in plugin %q: expected one of %s, or several joined by commas", n, strings.Join(Names(), ", "))
		}
		fs = append(fs, f())
	}
	if len(fs) == 1 {
		return fs[0], nil
	}
	return sdk.Merge(Shared, fs...)
}
