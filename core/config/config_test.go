package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

func avail() Available {
	vs := func(ss ...string) []version.Version {
		var out []version.Version
		for _, s := range ss {
			out = append(out, version.MustParse(s))
		}
		return out
	}
	return Available{Toolkit: "cuda", Releases: map[string][]version.Version{
		"cuda":     vs("11.8.0", "12.2.2", "12.4.0", "12.4.1", "13.0.0"),
		"cudnn":    vs("8.9.7", "9.12.0"),
		"tensorrt": vs("10.7.0"),
	}}
}

func opts(o Options) Literal { return Literal{From: "flags", Options: o} }

func str(s string) *string { return &s }

func TestDefaults(t *testing.T) {
	c, err := Evaluate(avail(), Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	if got := joinVersions(c.CUDA()); got != "11.8.0, 12.2.2, 12.4.0, 12.4.1, 13.0.0" {
		t.Errorf("CUDA = %s", got)
	}
	if c.Exec() != platform.LinuxX86_64 || len(c.Targets()) != 3 || c.ForwardCompat() {
		t.Errorf("exec %v targets %v fc %v", c.Exec(), c.Targets(), c.ForwardCompat())
	}
	// Defaults per CUDA version and target come from the GPU table.
	if got := strings.Join(c.CapabilityNames(version.MustParse("12.4.1"), platform.LinuxX86_64), ","); got != "7.0,7.5,8.0,8.6,8.9,9.0" {
		t.Errorf("12.4.1 x86_64 caps = %s", got)
	}
	if got := strings.Join(c.CapabilityNames(version.MustParse("12.4.1"), platform.LinuxJetson), ","); got != "8.7" {
		t.Errorf("12.4.1 jetson caps = %s", got)
	}
	if got := strings.Join(c.CapabilityNames(version.MustParse("13.0.0"), platform.LinuxJetson), ","); got != "11.0" {
		t.Errorf("13.0.0 jetson caps = %s (only Thor has a Jetson build in 13.0)", got)
	}
	for _, tg := range c.Targets() {
		if !c.CapabilitiesDefaulted(tg) {
			t.Errorf("%s: capabilities not marked as defaults, though nobody set any", tg)
		}
	}
}

// Capabilities go by kind, so naming only discrete GPUs leaves Jetson on its
// defaults, and the reverse; each target says which it has.
func TestCapabilitiesDefaulted(t *testing.T) {
	tests := []struct {
		caps      []string
		defaulted string // targets on defaults, in Targets order
	}{
		{nil, "linux-x86_64,linux-sbsa,linux-jetson"},
		{[]string{"8.0"}, "linux-jetson"},
		{[]string{"8.7"}, "linux-x86_64,linux-sbsa"},
		{[]string{"8.0", "8.7"}, ""},
	}
	for _, tc := range tests {
		c, err := Evaluate(avail(), Defaults{}, opts(Options{CUDA: []string{"12.4.1"}, Capabilities: tc.caps}))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tg := range c.Targets() {
			if c.CapabilitiesDefaulted(tg) {
				got = append(got, tg.Name())
			}
		}
		if strings.Join(got, ",") != tc.defaulted {
			t.Errorf("capabilities %v: defaulted targets %v, want %s", tc.caps, got, tc.defaulted)
		}
	}
}

func TestFlagsWin(t *testing.T) {
	fc := true
	c, err := Evaluate(avail(), Defaults{}, opts(Options{CUDA: []string{"12.4", "12"}, Capabilities: []string{"8.0", "9.0a", "8.7"},
		ForwardCompat: &fc, Targets: []string{"linux-aarch64", "linux-x86_64"}, Pins: []string{"cudnn=9", "cudnn@12.2=8.9"},
		Mirrors: []string{"https://mirror.example/nv"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := joinVersions(c.CUDA()); got != "12.4.1" {
		t.Errorf("CUDA = %s (12.4 and 12 both mean 12.4.1)", got)
	}
	if got := c.Targets(); len(got) != 2 || got[0] != platform.LinuxX86_64 || got[1] != platform.LinuxJetson {
		t.Errorf("targets = %v", got)
	}
	v := version.MustParse("12.4.1")
	if got := strings.Join(c.CapabilityNames(v, platform.LinuxX86_64), ","); got != "8.0,9.0a" {
		t.Errorf("x86 caps = %s", got)
	}
	if got := strings.Join(c.CapabilityNames(v, platform.LinuxJetson), ","); got != "8.7" {
		t.Errorf("jetson caps = %s", got)
	}
	if p, _ := c.Pin("cudnn", version.MustParse("12.2.2")); p.String() != "cudnn@12.2=8.9" {
		t.Errorf("pin for 12.2.2 = %s", p)
	}
	if p, _ := c.Pin("cudnn", v); p.String() != "cudnn=9" {
		t.Errorf("pin for 12.4.1 = %s", p)
	}
	// Accessors hand out copies: a caller cannot change the frozen value.
	c.Targets()[0] = platform.WindowsX86_64
	c.Mirrors()[0] = "x"
	if c.Targets()[0] != platform.LinuxX86_64 || c.Mirrors()[0] != "https://mirror.example/nv" {
		t.Error("frozen config was modified through an accessor")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		o    Literal
		want string
	}{
		{"unknown cuda", opts(Options{CUDA: []string{"12.7"}}), "option cuda: no CUDA release 12.7 in the manifests: expected one of 11.8.0, 12.2.2, 12.4.0, 12.4.1, 13.0.0"},
		{"bad cuda", opts(Options{CUDA: []string{"twelve"}}), `option cuda: version "twelve": part 1 ("twelve") is not a number`},
		{"unknown platform", opts(Options{Targets: []string{"linux-riscv64"}}), `option targets: unknown platform "linux-riscv64": expected one of linux-x86_64, linux-sbsa, linux-jetson, linux-ppc64le, windows-x86_64, windows-arm64`},
		{"windows exec", opts(Options{Exec: str("windows-x86_64")}), "option exec: windows-x86_64 cannot run builds: expected a Linux platform"},
		{"unknown capability", opts(Options{Capabilities: []string{"4.2"}}), "option capabilities: "},
		{"capability out of range", opts(Options{CUDA: []string{"13.0.0"}, Capabilities: []string{"6.1"}}), "option capabilities: capability 6.1 (Pascal) is not supported by CUDA 13.0"},
		{"capability too new", opts(Options{CUDA: []string{"11.8"}, Capabilities: []string{"10.0"}}), "option capabilities: capability 10.0 (Blackwell) is not supported by CUDA 11.8"},
		{"pin syntax", opts(Options{Pins: []string{"cudnn"}}), `option pins: "cudnn": expected product=version or product@cuda=version, such as <product>=8.9 or <product>@12.2=8.9`},
		{"pin product", opts(Options{Pins: []string{"cudnnn=8.9"}}), `option pins: "cudnnn=8.9": unknown product "cudnnn": expected one of cudnn, tensorrt`},
		{"pin version", opts(Options{Pins: []string{"cudnn=7.6"}}), `option pins: "cudnn=7.6": no cudnn release 7.6 in the manifests: expected one of 8.9.7, 9.12.0`},
		{"pin toolkit", opts(Options{Pins: []string{"cuda=12.4"}}), `the cuda toolkit is chosen with option cuda, not pinned`},
		{"pin conflict", opts(Options{Pins: []string{"cudnn=8.9", "cudnn=9.12"}}), `option pins: cudnn=8.9 and cudnn=9.12 pin the same product and CUDA version differently`},
		{"plugin syntax", opts(Options{Plugins: []string{"/bin/p"}}), `option plugins: "/bin/p": expected PATH=SHA256`},
		{"plugin sha", opts(Options{Plugins: []string{"/bin/p=abc"}}), `option plugins: "/bin/p=abc": sha256 "abc" is not 64 hex digits`},
		{"plugin twice", opts(Options{Plugins: []string{"/bin/p=" + strings.Repeat("a", 64), "/bin/p=" + strings.Repeat("b", 64)}}), `option plugins: /bin/p is declared twice`},
		{"mirror", opts(Options{Mirrors: []string{"mirror.example"}}), `option mirrors: "mirror.example" is not a URL`},
		{"no targets", opts(Options{Targets: []string{}}), "option targets: no target platform: expected one or more of linux-x86_64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(avail(), Defaults{}, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant containing %q", err, tt.want)
			}
		})
	}
}

// A release whose manifest was refused is not served; asking for it by name
// says why, and a prefix that other releases match still works.
func TestRefusedReleases(t *testing.T) {
	v := func(s string) version.Version { return version.MustParse(s) }
	avail := Available{Toolkit: "cuda",
		Releases: map[string][]version.Version{"cuda": {v("12.4.1"), v("13.0.0")}, "cudnn": {v("9.5.1")}},
		Refused: map[string][]RefusedRelease{
			"cuda":  {{Release: "12.6.0", Reason: "f.json:1:2: bad sha256"}, {Release: "13.0.0.0", Reason: "twin"}},
			"cudnn": {{Release: "9.6.0", Reason: "g.json: invalid JSON"}},
		}}
	for _, tt := range []struct {
		cuda    []string
		pins    []string
		wantErr string
	}{
		{cuda: []string{"12.6.0"}, wantErr: "option cuda: CUDA release 12.6.0 cannot be used: its manifest was refused: f.json:1:2: bad sha256"},
		{cuda: []string{"12.6"}, wantErr: "CUDA release 12.6.0 cannot be used"},
		{cuda: []string{"12"}},
		{cuda: []string{"13.0.0"}}, // a good 13.0.0 wins over a refused 13.0.0.0
		{pins: []string{"cudnn=9.6"}, wantErr: `option pins: "cudnn=9.6": cudnn release 9.6.0 cannot be used: its manifest was refused: g.json: invalid JSON`},
		{pins: []string{"cudnn=9.5"}},
	} {
		_, err := Evaluate(avail, Defaults{}, Literal{From: "test", Options: Options{CUDA: tt.cuda, Pins: tt.pins}})
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("cuda %v pins %v: error %v, want %q", tt.cuda, tt.pins, err, tt.wantErr)
		}
	}
	none := Available{Toolkit: "cuda", Releases: map[string][]version.Version{"cuda": nil},
		Refused: map[string][]RefusedRelease{"cuda": {{Release: "12.6.0", Reason: "bad"}}}}
	if _, err := Evaluate(none, Defaults{}); err == nil || !strings.Contains(err.Error(), "every CUDA toolkit manifest was refused (1), the first because: bad") {
		t.Errorf("all refused: %v", err)
	}
}

// named is a layer that names its options as a command line does.
type named struct{ Literal }

func (named) OptionName(opt Option) string { return "--" + opt.Flag }

// builtins is a layer that names its options as a configuration file does.
type builtins struct{ Literal }

func (builtins) OptionName(opt Option) string { return opt.Builtin }
func (builtins) OptionRef(opt Option) string  { return opt.Builtin + "() in cudapkgs.star" }

// OptionPosition: every option on line 1, a pin on the line of its entry's
// length (enough to tell entries apart).
func (builtins) OptionPosition(option, entry string) string {
	if entry != "" {
		return fmt.Sprintf("cudapkgs.star:%d:4", len(entry))
	}
	return "cudapkgs.star:1:1"
}

// Errors name the option as the layer that set it does: the flag, the
// builtin, the command line's flag for an option nobody set, and for a
// pin the layer that gave that pin.
func TestErrorsNameTheOptionAsWritten(t *testing.T) {
	file := func(o Options) Layer { return builtins{Literal{From: "cudapkgs.star", Options: o}} }
	flags := func(o Options) Layer { return named{Literal{From: "flags", Options: o}} }
	for _, tc := range []struct {
		name   string
		layers []Layer
		want   string
		layer  string
	}{
		{"flag", []Layer{file(Options{}), flags(Options{Targets: []string{"linux-riscv64"}})}, `--platform: unknown platform "linux-riscv64"`, "flags"},
		{"builtin", []Layer{file(Options{Targets: []string{"linux-riscv64"}}), flags(Options{})}, `cudapkgs.star:1:1: target_platforms: unknown platform "linux-riscv64"`, "cudapkgs.star"},
		{"flag over builtin", []Layer{file(Options{Exec: str("linux-sbsa")}), flags(Options{Exec: str("windows-x86_64")})}, "--exec: windows-x86_64 cannot run builds", "flags"},
		{"pin of the file among the flags' pins", []Layer{Defaults{}, file(Options{Pins: []string{"cudnn=7.6"}}), flags(Options{Pins: []string{"cudnn@12.4=8.9"}})}, `cudapkgs.star:9:4: pin: "cudnn=7.6": no cudnn release 7.6`, "cudapkgs.star"},
		{"ref to an option the flags set", []Layer{Defaults{}, file(Options{Capabilities: []string{"6.1"}}), flags(Options{CUDA: []string{"13.0.0"}})}, "cudapkgs.star:1:1: capabilities: capability 6.1 (Pascal) is not supported by CUDA 13.0.0: supported from CUDA 10.0 to 12.9 (choose CUDA versions in that range with --cuda, or drop the capability)", "cudapkgs.star"},
		{"ref to an option nobody set", []Layer{Defaults{}, file(Options{LocalComponents: []string{"cuda_nvcc"}}), flags(Options{})}, "cudapkgs.star:1:1: local_cuda: cuda_nvcc: set without the root of an installed CUDA: expected local_cuda() in cudapkgs.star as well", "cudapkgs.star"},
		{"ref to an option the file set", []Layer{Defaults{}, file(Options{CUDA: []string{"13.0.0"}}), flags(Options{Capabilities: []string{"6.1"}})}, "--capabilities: capability 6.1 (Pascal) is not supported by CUDA 13.0.0: supported from CUDA 10.0 to 12.9 (choose CUDA versions in that range with cuda_versions() in cudapkgs.star, or drop the capability)", "flags"},
		{"pin of the flags", []Layer{Defaults{}, file(Options{Pins: []string{"cudnn@12.4=8.9"}}), flags(Options{Pins: []string{"cudnn=7.6"}})}, `--pin: "cudnn=7.6": no cudnn release 7.6`, "flags"},
		{"nobody set it", []Layer{Defaults{}, file(Options{}), flags(Options{Capabilities: []string{"10.0"}, CUDA: []string{"11.8"}})}, "--capabilities: capability 10.0 (Blackwell) is not supported by CUDA 11.8", "flags"},
		{"no namer", []Layer{opts(Options{Targets: []string{"linux-riscv64"}})}, `option targets: unknown platform "linux-riscv64"`, "flags"},
		{"no namer, a ref", []Layer{opts(Options{LocalComponents: []string{"cuda_nvcc"}})}, `option local_components: cuda_nvcc: set without the root of an installed CUDA: expected option local_cuda as well`, "flags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Evaluate(avail(), tc.layers...)
			var oe *OptionError
			if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), tc.want) || oe.Layer != tc.layer {
				t.Errorf("error = %v (layer %q), want %q from layer %q", err, oe.Layer, tc.want, tc.layer)
			}
		})
	}
}

// Every row of Table is typed: exactly one field accessor, a name, flag,
// builtin, doc and example of its own; and the rows together cover every
// field of Options, so an option cannot be added without its row.
func TestTableRows(t *testing.T) {
	var o Options
	seen := map[string]bool{}
	for _, opt := range Table() {
		n := 0
		if opt.List != nil {
			n++
			*opt.List(&o) = []string{"x"}
		}
		if opt.Bool != nil {
			n++
			b := true
			*opt.Bool(&o) = &b
		}
		if opt.String != nil {
			n++
			s := "x"
			*opt.String(&o) = &s
		}
		if n != 1 {
			t.Errorf("option %s: %d field accessors, want 1", opt.Name, n)
		}
		if !opt.IsSet(&o) {
			t.Errorf("option %s: not set after its accessor set it", opt.Name)
		}
		for _, k := range []string{"name " + opt.Name, "flag " + opt.Flag} {
			if seen[k] {
				t.Errorf("%s twice", k)
			}
			seen[k] = true
		}
		if opt.Name == "" || opt.Flag == "" || opt.Builtin == "" || opt.Usage == "" || opt.Doc == "" || !strings.HasPrefix(opt.Example, opt.Builtin+"(") {
			t.Errorf("option %q: a row needs its name, flag, builtin, usage, doc and an example calling its builtin: %+v", opt.Name, opt)
		}
	}
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("Options.%s: no row of Table sets it", v.Type().Field(i).Name)
		}
	}
	if _, ok := Lookup("no_such"); ok || (Option{}).IsSet(&o) {
		t.Error("an unknown option is found, or a row without a field is set")
	}
}
