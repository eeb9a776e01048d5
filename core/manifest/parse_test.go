package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const good = `{
    "release_date": "2024-04-03",
    "release_label": "12.4.1",
    "release_product": "cuda",
    "cuda_cccl": {
        "name": "CXX Core Compute Libraries",
        "license": "CUDA Toolkit",
        "version": "12.4.127",
        "linux-x86_64": {
            "relative_path": "cuda_cccl/linux-x86_64/cuda_cccl-linux-x86_64-12.4.127-archive.tar.xz",
            "sha256": "e1636f27a142d24e73dfd831c54bbf5575b498fd5900648d7372fae46f824fdf",
            "md5": "70fcec0e14bd2e47d0758425695bf55c",
            "size": "1157180"
        }
    }
}`

func TestParseGood(t *testing.T) {
	m, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := m.Package("cuda_cccl")
	if !ok {
		t.Fatal("no cuda_cccl")
	}
	a, ok := p.Archive(LinuxX86_64, "")
	if !ok || a.Size != 1157180 || a.SHA256[:8] != "e1636f27" {
		t.Errorf("archive = %+v", a)
	}
	if len(m.SHA256) != 64 || m.Date != "2024-04-03" {
		t.Errorf("manifest = %+v", m)
	}
}

func TestParseVariants(t *testing.T) {
	src := `{"cudnn": {"version": "9.5.1.17", "cuda_variant": ["12", "13"],
	  "linux-x86_64": {
	    "cuda12": {"relative_path": "a/b-cuda12.tar.xz", "sha256": "` + strings.Repeat("a", 64) + `", "size": 10},
	    "cuda13": {"relative_path": "a/b-cuda13.tar.xz", "sha256": "` + strings.Repeat("b", 64) + `", "size": "11"},
	    "cuda13.1": {"relative_path": "a/b-cuda131.tar.xz", "sha256": "` + strings.Repeat("c", 64) + `", "size": "12"}}}}`
	m, err := Parse("x.json", "cudnn", "9.5.1", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Package("cudnn")
	for cuda, want := range map[string]string{"12.4.1": "cuda12", "13.0.0": "cuda13", "13.1.2": "cuda13.1", "11.8.0": ""} {
		got, _ := p.VariantFor(LinuxX86_64, mustV(cuda))
		if got != want {
			t.Errorf("VariantFor(%s) = %q, want %q", cuda, got, want)
		}
	}
}

// Each bad input is refused with the file, the JSON path, a position and what
// was expected.
func TestParseErrors(t *testing.T) {
	sha := strings.Repeat("a", 64)
	arch := func(fields string) string {
		return `{"p": {"version": "1.0.0",
  "linux-x86_64": {` + fields + `}}}`
	}
	tests := []struct {
		name, src, release, want string
	}{
		{"invalid json", "{\n  \"p\": {\n    \"version\": \"1\",,\n  }\n}", "1.0", `f.json:3:21: invalid JSON: invalid character ',' looking for beginning of object key string`},
		{"truncated", "{\n  \"p\": {", "1.0", `f.json:2:9: invalid JSON: unexpected end of JSON input`},
		{"top not object", `[1, 2]`, "1.0", `f.json:1:1: $: expected a JSON object at the top level, found a list`},
		{"missing sha256", arch(`"relative_path": "p/a.tar.xz", "size": "1"`), "1.0", `f.json:2:3: $.p["linux-x86_64"]: archive has no "sha256": expected 64 hex digits`},
		{"short sha256", arch(`"relative_path": "p/a.tar.xz", "sha256": "abc"`), "1.0", `f.json:2:51: $.p["linux-x86_64"].sha256: sha256 "abc" is not 64 hex digits`},
		{"non-hex sha256", arch(`"relative_path": "p/a.tar.xz", "sha256": "` + strings.Repeat("z", 64) + `"`), "1.0", `$.p["linux-x86_64"].sha256: sha256 "zzzz`},
		{"sha256 not string", arch(`"relative_path": "p/a.tar.xz", "sha256": 12`), "1.0", `$.p["linux-x86_64"].sha256: expected a string, found a number 12`},
		{"absolute path", arch(`"relative_path": "/etc/passwd", "sha256": "` + sha + `"`), "1.0", `f.json:2:20: $.p["linux-x86_64"].relative_path: relative_path "/etc/passwd" is absolute: expected a path relative to the redist folder`},
		{"climbing path", arch(`"relative_path": "p/../../x.tar.xz", "sha256": "` + sha + `"`), "1.0", `$.p["linux-x86_64"].relative_path: relative_path "p/../../x.tar.xz" climbs out of the redist folder with "..": expected a path inside it`},
		{"url path", arch(`"relative_path": "https://evil/x", "sha256": "` + sha + `"`), "1.0", `is a URL`},
		{"size not number", arch(`"relative_path": "p/a.tar.xz", "sha256": "` + sha + `", "size": "12kB"`), "1.0", `$.p["linux-x86_64"].size: size 12kB is not a number: expected a non-negative number of bytes`},
		{"size negative", arch(`"relative_path": "p/a.tar.xz", "sha256": "` + sha + `", "size": -3`), "1.0", `size -3 is negative: expected a non-negative number of bytes`},
		{"label mismatch", `{"release_label": "12.4.0", "p": {"version": "1.0", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}}`, "12.4.1", `$.release_label: release_label "12.4.0" does not match the file name's release "12.4.1"`},
		{"product mismatch", `{"release_product": "cudnn", "p": {"version": "1.0", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}}`, "1.0", `$.release_product: release_product "cudnn" does not match the product "cuda"`},
		{"no packages", `{"release_date": "2024-01-01"}`, "1.0", `$: manifest has no packages`},
		{"bad release in name", `{}`, "latest", `f.json: release in file name: version "latest"`},
		{"url relative", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "url": "packages/a.whl"`), "1.0", `$.p["linux-x86_64"].url: url "packages/a.whl": expected an absolute https:// URL`},
		{"url ftp", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "url": "ftp://h/a.whl"`), "1.0", `url "ftp://h/a.whl": expected an absolute https:// URL`},
		{"url quote", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "url": "https://h/a b.whl"`), "1.0", `holds a quote, backslash, space`},
		{"url user", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "url": "https://u:p@h/a.whl"`), "1.0", `expected a URL without user information`},
		{"url not string", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "url": 3`), "1.0", `$.p["linux-x86_64"].url: expected a string, found a number 3`},
		{"strip prefix climbs", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "strip_prefix": "../x"`), "1.0", `$.p["linux-x86_64"].strip_prefix: strip_prefix "../x" climbs out`},
		{"strip prefix absolute", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "strip_prefix": "/nvidia"`), "1.0", `strip_prefix "/nvidia" is absolute`},
		{"strip prefix space", arch(`"relative_path": "p/a.whl", "sha256": "` + sha + `", "strip_prefix": "nvidia/a b"`), "1.0", `strip_prefix "nvidia/a b" holds a space`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.json", "cuda", tt.release, []byte(tt.src))
			if err == nil {
				t.Fatalf("accepted; want error %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n  %s\nwant containing:\n  %s", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Errorf("error does not start with the file name: %s", err)
			}
		})
	}
}

// A wheel's archive says where it is downloaded from and which folder of it
// holds the package.
func TestParseWheelArchive(t *testing.T) {
	sha := strings.Repeat("a", 64)
	src := `{"nccl": {"version": "2.28.3", "linux-sbsa": {"cuda13": {
	  "relative_path": "nvidia-nccl-cu13/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_aarch64.whl",
	  "url": "https://files.pythonhosted.org/packages/aa/bb/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_aarch64.whl",
	  "sha256": "` + sha + `", "size": 12, "strip_prefix": "nvidia/nccl",
	  "wheel": {"index": "https://pypi.org/simple/", "project": "nvidia-nccl-cu13"}}}}}`
	m, err := Parse("f.json", "nccl", "2.28.3", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Package("nccl")
	a, ok := p.Archive(LinuxSBSA, "cuda13")
	if !ok || a.URL != "https://files.pythonhosted.org/packages/aa/bb/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_aarch64.whl" || a.StripPrefix != "nvidia/nccl" || a.Size != 12 {
		t.Errorf("archive = %+v", a)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings = %v", m.Warnings)
	}
}

func TestUnknownPlatformWarns(t *testing.T) {
	sha := strings.Repeat("a", 64)
	src := `{"p": {"version": "1.0",
	  "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"},
	  "linux-riscv64": {"relative_path": "b", "sha256": "` + sha + `"}}}`
	m, err := Parse("f.json", "cuda", "1.0", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0].String(), `f.json: $.p["linux-riscv64"]: unknown platform key "linux-riscv64" ignored`) {
		t.Errorf("warnings = %v", m.Warnings)
	}
	p, _ := m.Package("p")
	if len(p.Archives) != 1 {
		t.Errorf("unknown platform kept: %+v", p.Archives)
	}
}

func TestJSONPath(t *testing.T) {
	if got := jsonPath([]string{"cuda_cccl", "linux-x86_64", "sha256"}); got != `$.cuda_cccl["linux-x86_64"].sha256` {
		t.Errorf("jsonPath = %s", got)
	}
}

func TestTrailingData(t *testing.T) {
	_, err := Parse("f.json", "cuda", "1.0", []byte(`{"p": {}} {"q": 1}`))
	if err == nil || !strings.Contains(err.Error(), "unexpected data after the top-level object") {
		t.Errorf("error = %v", err)
	}
}

// A defect confined to one entry leaves the entry in place, unusable with the
// reason (or, for a shape that only adds something, a warning), and every
// other package of the file usable.
func TestEntryDefects(t *testing.T) {
	sha := strings.Repeat("a", 64)
	good := `"q": {"version": "2.0", "linux-x86_64": {"relative_path": "q/q.tar.xz", "sha256": "` + sha + `"}}`
	tests := []struct {
		name, entry string
		problem     string // in p's Problems; "" when p stays usable
		warning     string
	}{
		{"no archive", `"p": {"version": "1.0.0", "name": "P"}`, `$.p: package "p" has no archive: expected at least one platform key`, `package "p" cannot be used`},
		{"only unknown platform", `"p": {"version": "1.0.0", "linux-riscv64": {"relative_path": "a", "sha256": "` + sha + `"}}`, `package "p" has no archive`, `unknown platform key "linux-riscv64" ignored`},
		{"bad version", `"p": {"version": "12.4.x", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, `$.p.version: version "12.4.x": part 3 ("x") is not a number`, `$.p.version: package "p" cannot be used`},
		{"missing version", `"p": {"linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, `$.p: package "p" has no "version"`, ""},
		{"version not string", `"p": {"version": 12, "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, `$.p.version: expected a string, found a number 12`, ""},
		{"archive without path", `"p": {"version": "1.0", "linux-x86_64": {"sha256": "` + sha + `"}}`, `$.p["linux-x86_64"]: archive has no "relative_path"`, ""},
		{"platform not object", `"p": {"version": "1.0", "linux-x86_64": [1]}`, `$.p["linux-x86_64"]: expected an archive object`, ""},
		{"unknown variant key", `"p": {"version": "1.0", "linux-x86_64": {"cudaX": {"relative_path": "a", "sha256": "` + sha + `"}, "cuda12": {"relative_path": "b", "sha256": "` + sha + `"}}}`, "", `$.p["linux-x86_64"].cudaX: unknown variant key "cudaX" ignored`},
		{"only unknown variant key", `"p": {"version": "1.0", "linux-x86_64": {"cuda_next": {"relative_path": "a", "sha256": "` + sha + `"}}}`, `package "p" has no archive`, `unknown variant key "cuda_next" ignored`},
		{"bad cuda_variant", `"p": {"version": "1.0", "cuda_variant": ["12", "x"], "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, "", `$.p.cuda_variant[1]: ignored: expected a CUDA version such as "12"`},
		{"new package field", `"p": {"version": "1.0", "package_type": "runtime", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, "", `$.p.package_type: unknown field "package_type" ignored`},
		{"new top-level field", `"release_notes": "https://example/notes", "p": {"version": "1.0", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, "", `$.release_notes: unknown top-level field ignored`},
		{"top-level list", `"p": [1]`, "", `$.p: unknown top-level field ignored: expected a package object`},
		{"five-part version", `"p": {"version": "13.3.3.3.1", "linux-x86_64": {"relative_path": "a", "sha256": "` + sha + `"}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse("f.json", "cuda", "1.0", []byte("{"+tt.entry+", "+good+"}"))
			if err != nil {
				t.Fatalf("refused the whole file: %v", err)
			}
			if q, ok := m.Package("q"); !ok || len(q.Problems) > 0 || len(q.Archives) != 1 {
				t.Errorf("the good package suffered: %+v", q)
			}
			p, ok := m.Package("p")
			switch {
			case tt.problem == "" && ok && len(p.Problems) > 0:
				t.Errorf("p unusable: %v", p.Problems)
			case tt.problem != "" && !ok:
				t.Errorf("p dropped; want it kept with %q", tt.problem)
			case tt.problem != "" && (len(p.Problems) == 0 || !strings.Contains(p.Problems[0], tt.problem) || len(p.Archives) != 0):
				t.Errorf("p problems = %q (archives %d), want %q", p.Problems, len(p.Archives), tt.problem)
			}
			var ws []string
			for _, w := range m.Warnings {
				ws = append(ws, w.String())
			}
			joined := strings.Join(ws, "\n")
			if tt.warning != "" && !strings.Contains(joined, tt.warning) {
				t.Errorf("warnings:\n%s\nwant containing %q", joined, tt.warning)
			}
			if tt.problem == "" && tt.warning == "" && len(ws) > 0 {
				t.Errorf("unexpected warnings: %s", joined)
			}
		})
	}
}

// ParseContext stops when its context has ended, with an error that names
// the file and the cause and is not a manifest error (issue 24: a fetch's
// time limit must cover parsing).
func TestParseContextStops(t *testing.T) {
	cause := errors.New("timed out after 20s")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := ParseContext(ctx, "m.json", "cuda", "12.4.1", []byte(`{"p": {"version": "1.0", "linux-x86_64": {"relative_path": "p/a.tar.xz", "sha256": "`+strings.Repeat("0", 64)+`"}}}`))
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, cause) || IsManifestError(err) || !strings.Contains(err.Error(), "m.json: parsing stopped before the end: timed out after 20s") {
		t.Errorf("error = %v, want a *StoppedError naming m.json and the cause", err)
	}
	if _, err := ParseContext(context.Background(), "m.json", "cuda", "12.4.1", []byte(`{"p": {"version": "1.0", "linux-x86_64": {"relative_path": "p/a.tar.xz", "sha256": "`+strings.Repeat("0", 64)+`"}}}`)); err != nil {
		t.Errorf("live context: %v", err)
	}
}
