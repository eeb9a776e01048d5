package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, c *config)
		wantErr string
	}{
		{
			name: "grpc:// prefix and repeated properties",
			args: []string{"-server", "grpc://127.0.0.1:50051", "-name", "b", "-cache", "/c",
				"-property", "OSFamily=linux", "-property", "gpu=nvidia", "-property", "k=a=b", "-concurrency", "2"},
			check: func(t *testing.T, c *config) {
				if c.server != "127.0.0.1:50051" {
					t.Errorf("server %q", c.server)
				}
				want := []property{{"OSFamily", "linux"}, {"gpu", "nvidia"}, {"k", "a=b"}}
				if !reflect.DeepEqual(c.props, want) {
					t.Errorf("props %v, want %v", c.props, want)
				}
				if c.concurrency != 2 || c.root != "" {
					t.Errorf("config %+v", c)
				}
			},
		},
		{name: "cache required", args: []string{"-name", "b"}, wantErr: "-cache is required"},
		{name: "property without =", args: []string{"-cache", "/c", "-property", "gpu"}, wantErr: "want key=value"},
		{name: "relative root", args: []string{"-cache", "/c", "-root", "rel"}, wantErr: "absolute"},
		{name: "stray argument", args: []string{"-cache", "/c", "extra"}, wantErr: "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
