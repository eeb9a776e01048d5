package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// Lists work where users write them: comma lists in --release (a plain
// version after product=version is that product's), --mirror,
// --product-url, and repeats of each.
func TestFetchLists(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		releases map[string][]string
		products []string
		mirrors  []string
		urls     map[string]string
	}{
		{name: "comma list of one product", args: []string{"--release", "cuda=12.9.1,13.0.0"},
			releases: map[string][]string{"cuda": {"12.9.1", "13.0.0"}}, products: []string{"cuda"}},
		{name: "comma list of two products", args: []string{"--release", "cuda=12.9.1,12.8.0,cudnn=9.12.0"},
			releases: map[string][]string{"cuda": {"12.9.1", "12.8.0"}, "cudnn": {"9.12.0"}}, products: []string{"cuda", "cudnn"}},
		{name: "repeats", args: []string{"--release", "cuda=12.9.1", "--release", "cudnn=9.12.0,9.5.1"},
			releases: map[string][]string{"cuda": {"12.9.1"}, "cudnn": {"9.12.0", "9.5.1"}}, products: []string{"cuda", "cudnn"}},
		{name: "plain versions of one --product", args: []string{"--product", "cuda", "--release", "12.9.1,13.0.0"},
			releases: map[string][]string{"cuda": {"12.9.1", "13.0.0"}}, products: []string{"cuda"}},
		{name: "mirrors", args: []string{"--release", "cuda=12.9.1", "--mirror", "https://a.example/x,https://b.example/y", "--mirror", "https://m.example/a,1"},
			releases: map[string][]string{"cuda": {"12.9.1"}}, products: []string{"cuda"},
			mirrors: []string{"https://a.example/x", "https://b.example/y", "https://m.example/a,1"}},
		{name: "product URLs", args: []string{"--release", "tensorrt=10.7.0", "--product-url", "tensorrt=https://t.example/a,b/,cusparselt=https://c.example/"},
			releases: map[string][]string{"tensorrt": {"10.7.0"}}, products: []string{"tensorrt"},
			urls: map[string]string{"tensorrt": "https://t.example/a,b/", "cusparselt": "https://c.example/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fetchFlags
			fl := pflag.NewFlagSet("fetch", pflag.ContinueOnError)
			f.bind(fl)
			if err := fl.Parse(append(tc.args, "--cache", t.TempDir())); err != nil {
				t.Fatal(err)
			}
			o, err := f.options(builtintest.Products(t))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o.Releases, tc.releases) || !slices.Equal(o.Products, tc.products) {
				t.Errorf("releases %v of %v, want %v of %v", o.Releases, o.Products, tc.releases, tc.products)
			}
			if !slices.Equal(o.Sources.Mirrors, tc.mirrors) {
				t.Errorf("mirrors %q, want %q", o.Sources.Mirrors, tc.mirrors)
			}
			if tc.urls == nil {
				tc.urls = map[string]string{}
			}
			if !reflect.DeepEqual(o.Sources.ProductURLs, tc.urls) {
				t.Errorf("product URLs %q, want %q", o.Sources.ProductURLs, tc.urls)
			}
		})
	}
}

// The configuration flags that are not split at every comma still take
// comma lists between whole values: --mirror, --pin, --plugin.
func TestConfigFlagLists(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	for _, tc := range []struct {
		args []string
		want config.Options
	}{
		{[]string{"--pin", "cudnn=8.9,tensorrt@12.2=10.7", "--pin", "cutensor=2.1"},
			config.Options{Pins: []string{"cudnn=8.9", "tensorrt@12.2=10.7", "cutensor=2.1"}}},
		{[]string{"--mirror", "https://a.example/,http://b.example/q?x=1,2"},
			config.Options{Mirrors: []string{"https://a.example/", "http://b.example/q?x=1,2"}}},
		{[]string{"--plugin", "/p/one=" + a + ",/p/t,wo=" + b},
			config.Options{Plugins: []string{"/p/one=" + a, "/p/t,wo=" + b}}},
	} {
		cmd := &cobra.Command{Use: "x"}
		f := addConfigFlags(cmd)
		if err := cmd.Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		var got config.Options
		if err := f.Apply(&got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
