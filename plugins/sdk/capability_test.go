package sdk

import "testing"

func TestConfigCapability(t *testing.T) {
	c := Config{Architectures: map[string]string{"8.0": "Ampere", "9.0a": "Hopper", "10.0f": "Blackwell"}}
	for _, tt := range []struct {
		name, want, arch string
		ok               bool
	}{
		{"8.0", "8.0", "Ampere", true},
		{"9.0a", "9.0", "Hopper", true},
		{"10.0f", "10.0", "Blackwell", true},
		{"sm_90", "", "", false}, // not a batch's spelling: the host lists none
		{"4.2", "", "", false},   // unknown to the host
	} {
		v, arch, ok := c.Capability(tt.name)
		if ok != tt.ok || arch != tt.arch || (ok && v.String() != tt.want) {
			t.Errorf("Capability(%q) = %v, %q, %v; want %s, %q, %v", tt.name, v, arch, ok, tt.want, tt.arch, tt.ok)
		}
	}
}

func TestConfigBelow(t *testing.T) {
	c := Config{Architectures: map[string]string{"5.0": "Maxwell", "6.0": "Pascal", "6.1": "Pascal", "7.0": "Volta",
		"7.2": "Volta", "7.5": "Turing", "8.0": "Ampere"}}
	for _, tt := range []struct {
		caps []string
		want string
	}{
		{nil, ""},
		{[]string{"7.5", "8.0"}, ""},
		{[]string{"6.0", "8.0"}, "6.0 (Pascal) is selected"},
		{[]string{"6.0", "7.0", "8.0"}, "6.0 (Pascal) and 7.0 (Volta) are selected"},
		{[]string{"5.0", "6.0", "6.1", "7.0", "7.2"}, "5.0 (Maxwell), 6.0 (Pascal), 6.1 (Pascal) and 2 more are selected"},
		{[]string{"sm_60", "6.0"}, "6.0 (Pascal) is selected"},
	} {
		if got := c.Below(tt.caps, MustVersion("7.5")); got != tt.want {
			t.Errorf("Below(%q) = %q, want %q", tt.caps, got, tt.want)
		}
	}
}
