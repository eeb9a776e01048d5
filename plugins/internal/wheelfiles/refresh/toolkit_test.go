package main

import (
	"encoding/json"
	"testing"
)

// TestResolve: cuda-toolkit's pins name a component version, which PyPI may
// hold as a .postN rebuild; nvJitLink is pinned by a floor.
func TestResolve(t *testing.T) {
	var p project
	if err := json.Unmarshal([]byte(`{"releases": {"12.4.127": [], "12.4.127.post1": [], "12.4.99": [], "13.0.88": [], "13.0.88.post2": [], "13.0.880": []}}`), &p); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ req, want string }{
		{"==12.4.127.*", "12.4.127.post1"},
		{"==12.4.99", "12.4.99"},
		{"<14,>=13.0.88", "13.0.88"},
		{"==13.0.88.*", "13.0.88.post2"},
	} {
		if got, err := resolve(p, tc.req); err != nil || got != tc.want {
			t.Errorf("resolve(%q) = %q, %v; want %q", tc.req, got, err, tc.want)
		}
	}
	for _, bad := range []string{"==13.1.80.*", "~=13.0"} {
		if got, err := resolve(p, bad); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", bad, got)
		}
	}
}

func TestReplaceCudaLines(t *testing.T) {
	in := "# header\ncuda 12.0.0 x86_64 a==1 p\ncuda 12.0.1 x86_64 a==2 p\ncudnn 9.1.1@12.4.1 x86_64 c==9 cudnn\n"
	want := "# header\ncuda 12.0.0,12.0.1 x86_64 a==1 p\ncudnn 9.1.1@12.4.1 x86_64 c==9 cudnn\n"
	if got := replaceCudaLines(in, []string{"cuda 12.0.0,12.0.1 x86_64 a==1 p"}); got != want {
		t.Errorf("replaceCudaLines:\n%s\nwant\n%s", got, want)
	}
}
