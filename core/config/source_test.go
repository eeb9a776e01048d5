package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSources(t *testing.T) {
	offered := map[string][]string{
		"both":  {SourceNVIDIA, SourceWheels},
		"nv":    {SourceNVIDIA},
		"wheel": {SourceWheels},
	}
	for _, tt := range []struct {
		name string
		raw  []string
		want map[string]string
		err  string
	}{
		{"defaults", nil, map[string]string{"both": SourceNVIDIA}, ""},
		{"wheels", []string{"both=wheels"}, map[string]string{"both": SourceWheels}, ""},
		{"nvidia said", []string{"both=nvidia", "nv=nvidia"}, map[string]string{"both": SourceNVIDIA, "nv": SourceNVIDIA}, ""},
		{"no equals", []string{"both"}, nil, `"both": expected product=source, such as <product>=wheels`},
		{"unknown source", []string{"both=pypi"}, nil, `"both=pypi": unknown source "pypi": expected nvidia (NVIDIA's manifests) or wheels (a Python package index)`},
		{"unknown product", []string{"acme=wheels"}, nil, `"acme=wheels": unknown product "acme": expected one of both, nv, wheel`},
		{"not offered", []string{"nv=wheels"}, nil, `"nv=wheels": nv comes from nvidia only`},
		{"twice", []string{"both=wheels", "both=nvidia"}, nil, `"both=nvidia": both is given a source twice`},
	} {
		got, err := ParseSources(tt.raw, offered)
		if tt.err != "" {
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != "sources" || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want an OptionError of sources with %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		} else if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestCheckSourceEntry(t *testing.T) {
	for r, ok := range map[string]bool{"cudss=wheels": true, "cudss=nvidia": true, "cudss": false, "=wheels": false, "cudss=pip": false} {
		if err := CheckSourceEntry(r); (err == nil) != ok {
			t.Errorf("CheckSourceEntry(%q) = %v", r, err)
		}
	}
}
