package fixup

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

func TestCheckFacts(t *testing.T) {
	ok := sdk.ProductFacts{Product: "acme", Base: "https://example.com", Path: "pub/acme/redist"}
	with := func(f func(*sdk.ProductFacts)) sdk.ProductFacts { c := ok; f(&c); return c }
	tc := &sdk.Toolchain{Compiler: "acme_cc", Runtime: "acme_rt", Headers: []sdk.ToolchainHeaders{{Packages: []string{"acme_rt"}}, {Since: "2.0", Packages: []string{"acme_rt", "acme_crt"}}}}
	tests := []struct {
		name  string
		facts []sdk.ProductFacts
		want  string // "" when accepted
	}{
		{"plain", []sdk.ProductFacts{ok}, ""},
		{"none", nil, ""},
		{"flat ranges and a prefix", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.FlatCUDA = []sdk.FlatCUDA{{From: "1", Below: "1.7", CUDA: []string{"10.2", "11"}}, {From: "2", CUDA: []string{"12"}}}
			f.StripPrefix = "Acme-{version}"
		})}, ""},
		{"a toolkit with its toolchain", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.Toolkit, f.Toolchain = true, tc
			f.LocalHints = []sdk.LocalHint{{Component: "acme_cc", Rel: "bin/cc", Kind: "text", Key: ", V"}}
		})}, ""},
		{"platforms", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Platforms = []string{"linux-x86_64", "linux-jetson"} })}, ""},
		{"an unknown platform", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Platforms = []string{"linux-aarch64"} })}, `platform "linux-aarch64": expected one of`},
		{"another product's", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Product = "other" })}, `facts of product "other": not among its products (acme)`},
		{"twice", []sdk.ProductFacts{ok, ok}, "given twice"},
		{"no base", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Base = "" })}, `base "": expected an https://, http:// or file:// URL`},
		{"ftp base", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Base = "ftp://x" })}, `base "ftp://x"`},
		{"no path", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Path = "/" })}, `path "/": expected a relative URL path`},
		{"path up", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Path = "../etc" })}, `path "../etc"`},
		{"path not clean", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Path = "a//b" })}, `path "a//b"`},
		{"path query", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Path = "a?b" })}, `path "a?b"`},
		{"flat range empty", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.FlatCUDA = []sdk.FlatCUDA{{From: "2", Below: "1", CUDA: []string{"12"}}}
		})}, "flat CUDA range 2..1: empty"},
		{"flat range bad version", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.FlatCUDA = []sdk.FlatCUDA{{From: "x", CUDA: []string{"12"}}}
		})}, "flat CUDA range x..: from: "},
		{"flat range no CUDA", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.FlatCUDA = []sdk.FlatCUDA{{From: "1"}} })}, "no CUDA versions"},
		{"no CUDA", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.NoCUDA = true })}, ""},
		{"no CUDA and flat ranges", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.NoCUDA, f.FlatCUDA = true, []sdk.FlatCUDA{{From: "1", CUDA: []string{"12"}}}
		})}, "no CUDA: expected neither a toolkit nor flat CUDA ranges"},
		{"no CUDA toolkit", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.NoCUDA, f.Toolkit = true, true })}, "no CUDA: expected neither a toolkit"},
		{"strip prefix with a folder", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.StripPrefix = "a/{version}" })}, `strip prefix "a/{version}"`},
		{"strip prefix unknown placeholder", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.StripPrefix = "{name}" })}, `strip prefix "{name}"`},
		{"toolchain of no toolkit", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) { f.Toolchain = tc })}, "a toolchain is the toolkit product's only"},
		{"toolchain without headers", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.Toolkit, f.Toolchain = true, &sdk.Toolchain{Compiler: "c", Runtime: "r"}
		})}, "expected a compiler, a runtime and header packages"},
		{"toolchain headers out of order", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.Toolkit, f.Toolchain = true, &sdk.Toolchain{Compiler: "c", Runtime: "r", Headers: []sdk.ToolchainHeaders{{Since: "2", Packages: []string{"r"}}, {Since: "1", Packages: []string{"r"}}}}
		})}, "since 1 is not after 2"},
		{"wheel-only", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{sdk.WheelProject{Project: "nvidia-nccl-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nccl", Prefix: "nvidia/nccl"}}}}, ""},
		{"wheels and a base", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.Wheels = []sdk.WheelProject{sdk.WheelProject{Project: "nvidia-nccl-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nccl", Prefix: "nvidia/nccl"}}
		})}, ""},
		{"wheels without majors", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p", Package: "nccl"}}}}, `wheels "p": no CUDA majors`},
		{"wheels without {major}", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p", CUDAMajors: []string{"12", "13"}, Package: "nccl"}}}}, `2 CUDA majors but no {major} in the project name`},
		{"wheels bad major", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p{major}", CUDAMajors: []string{"12.4"}, Package: "nccl"}}}}, `CUDA major "12.4": expected a number`},
		{"wheels prefix climbs", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p", CUDAMajors: []string{"12"}, Package: "nccl", Prefix: "../x"}}}}, `prefix "../x": expected a folder inside the wheel`},
		{"wheels bad project", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p q", CUDAMajors: []string{"12"}, Package: "nccl"}}}}, `project name "p q": expected letters`},
		{"wheels bad package", []sdk.ProductFacts{{Product: "acme", Wheels: []sdk.WheelProject{{Project: "p", CUDAMajors: []string{"12"}, Package: "a b"}}}}, `package: `},
		{"local hint kind", []sdk.ProductFacts{with(func(f *sdk.ProductFacts) {
			f.LocalHints = []sdk.LocalHint{{Component: "c", Rel: "bin/c", Kind: "guess", Key: "V"}}
		})}, "expected a component, a relative path, a key and a kind of define, json, name, text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			products := []string{"acme"}
			_, err := convertFacts(sdk.Description{Name: "p", Products: products, Facts: tt.facts})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestProducts: the plugin that serves a product gives its facts; a
// declared plugin that takes over a built-in product without facts keeps
// the built-in's; the toolkit comes first, then by name; exactly one
// product is the toolkit, checked here and nowhere else.
func TestProducts(t *testing.T) {
	run := func(name string, builtin bool, facts ...sdk.ProductFacts) *running {
		var ps []string
		for _, f := range facts {
			ps = append(ps, f.Product)
		}
		d := sdk.Description{Name: name, Products: ps, Facts: facts}
		converted, err := convertFacts(d)
		if err != nil {
			t.Fatal(err)
		}
		return &running{spec: Spec{Name: name, Builtin: builtin}, desc: d, products: converted}
	}
	tk := sdk.ProductFacts{Product: "kit", Toolkit: true, Base: "https://nv.example", Path: "kit",
		Toolchain:  &sdk.Toolchain{Compiler: "kit_cc", Runtime: "kit_rt", Headers: []sdk.ToolchainHeaders{{Packages: []string{"kit_rt"}}}},
		LocalHints: []sdk.LocalHint{{Component: "kit_cc", Rel: "bin/cc", Kind: "text", Key: "V"}}, LocalIdentify: []string{"kit_cc"}}
	lib := sdk.ProductFacts{Product: "alib", Base: "https://nv.example", Path: "alib"}
	site := sdk.ProductFacts{Product: "alib", Base: "https://site.example", Path: "mirror/alib"}
	host := func(rs ...*running) *Host {
		h := &Host{plugins: rs, byProduct: map[string]*running{}}
		for _, builtin := range []bool{false, true} {
			for _, r := range rs {
				for _, p := range r.desc.Products {
					if _, taken := h.byProduct[p]; r.spec.Builtin == builtin && !taken {
						h.byProduct[p] = r
					}
				}
			}
		}
		return h
	}
	layout := func(ps Products) string {
		var out []string
		for _, p := range ps.List {
			out = append(out, fmt.Sprintf("%s:%t:%s/%s", p.Name, p.Toolkit, p.Base, p.Path))
		}
		return strings.Join(out, " ")
	}
	got, err := host(run("libs", true, lib), run("kit", true, tk)).Products()
	if err != nil {
		t.Fatal(err)
	}
	if want := "kit:true:https://nv.example/kit alib:false:https://nv.example/alib"; layout(got) != want {
		t.Errorf("built-ins = %s, want %s", layout(got), want)
	}
	if tc := got.Toolkit; tc.Product != "kit" || tc.Toolchain.Compiler != "kit_cc" || len(tc.LocalHints) != 1 || tc.LocalHints[0].Key != "V" || !slices.Equal(tc.LocalIdentify, []string{"kit_cc"}) {
		t.Errorf("toolkit = %+v", tc)
	}
	if h := got.Toolkit.Toolchain.Headers(version.MustParse("12.0")); !slices.Equal(h, []string{"kit_rt"}) {
		t.Errorf("toolchain headers = %v", h)
	}
	// A site plugin that takes alib over with facts of its own wins...
	got, _ = host(run("kit", true, tk), run("libs", true, lib), run("site", false, site)).Products()
	if want := "kit:true:https://nv.example/kit alib:false:https://site.example/mirror/alib"; layout(got) != want {
		t.Errorf("taken over with facts = %s, want %s", layout(got), want)
	}
	// ...one that gives none keeps the built-in's.
	bare := &running{spec: Spec{Name: "bare"}, desc: sdk.Description{Name: "bare", Products: []string{"alib"}}}
	got, _ = host(run("kit", true, tk), run("libs", true, lib), bare).Products()
	if want := "kit:true:https://nv.example/kit alib:false:https://nv.example/alib"; layout(got) != want {
		t.Errorf("taken over without facts = %s, want %s", layout(got), want)
	}
	other := sdk.ProductFacts{Product: "kit2", Toolkit: true, Base: "https://x.example", Path: "kit2"}
	for _, tt := range []struct {
		name string
		h    *Host
		want string
	}{
		{"two toolkits", host(run("kit", true, tk), run("kit2", false, other)), "plugins kit and kit2 both describe the toolkit (products kit and kit2): expected one"},
		{"no toolkit", host(run("libs", true, lib)), "no plugin describes the toolkit (the product whose releases are the CUDA versions; products: alib): expected one"},
	} {
		if _, err := tt.h.Products(); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error = %v, want %s", tt.name, err, tt.want)
		}
	}
	// In process, the same checks and the same order.
	got, err = ProductsOf(sdk.Description{Name: "libs", Products: []string{"alib"}, Facts: []sdk.ProductFacts{lib}}, sdk.Description{Name: "kit", Products: []string{"kit"}, Facts: []sdk.ProductFacts{tk}})
	if want := "kit:true:https://nv.example/kit alib:false:https://nv.example/alib"; err != nil || layout(got) != want {
		t.Errorf("ProductsOf = %s, %v; want %s", layout(got), err, want)
	}
	if _, err := ProductsOf(sdk.Description{Name: "libs", Products: []string{"alib"}, Facts: []sdk.ProductFacts{lib}}); err == nil || !strings.Contains(err.Error(), "no plugin describes the toolkit") {
		t.Errorf("ProductsOf without a toolkit: error = %v", err)
	}
}
