package version

import (
	"sort"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		parts   int
		wantErr string
	}{
		{"12", 1, ""},
		{"12.4", 2, ""},
		{"12.4.127", 3, ""},
		{"9.5.1.17", 4, ""},
		{"2.0.2.1", 4, ""},
		{"", 0, "empty version"},
		{"1.2.3.4.5", 5, ""},
		{"13.3.3.3.1", 5, ""},
		{"1.2.3.4.5.6.7.8", 8, ""},
		{"1.2.3.4.x", 0, "part 5 (\"x\") is not a number"},
		{"1.2.3.4.", 0, "part 5 (\"\")"},
		{"12.x", 0, "part 2 (\"x\") is not a number"},
		{"12..4", 0, "part 2 (\"\")"},
		{"v12.4", 0, "is not a number"},
		{"-1.2", 0, "is not a number"},
		{"12.4-rc1", 0, "is not a number"},
	}
	for _, tt := range tests {
		v, err := Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if v.Parts() != tt.parts || v.String() != tt.in {
			t.Errorf("Parse(%q) = %d parts %q", tt.in, v.Parts(), v.String())
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"12.4", "12.4.0", 0},
		{"9.5.1.17", "9.5.1.9", 1},
		{"9.10.0", "9.9.0", 1},
		{"8.9.7.29", "9.0.0.312", -1},
		{"2.0.2", "2.0.2.1", -1},
		{"11.8", "12.0", -1},
		{"13.3.3.3.1", "13.3.3.3", 1},
		{"13.3.3.3.0", "13.3.3.3", 0},
		{"13.3.3.3.0.0", "13.3.3.3", 0},
		{"13.3.3.3.10", "13.3.3.3.9", 1},
		{"13.3.3.3.1", "13.3.3.4", -1},
		{"13.3.3.3.1.2", "13.3.3.3.1.10", -1},
	}
	for _, tt := range tests {
		if got := MustParse(tt.a).Compare(MustParse(tt.b)); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSortKeepsText(t *testing.T) {
	in := []string{"9.12.0", "9.2.1", "8.9.7", "9.2.0", "10.0"}
	vs := make([]Version, len(in))
	for i, s := range in {
		vs[i] = MustParse(s)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Less(vs[j]) })
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	if strings.Join(got, " ") != "8.9.7 9.2.0 9.2.1 9.12.0 10.0" {
		t.Errorf("sorted = %v", got)
	}
}

func TestHelpers(t *testing.T) {
	v := MustParse("8.9.7.29")
	if v.MajorMinor().String() != "8.9" || v.Underscored(2) != "8_9" {
		t.Errorf("MajorMinor/Underscored wrong: %s %s", v.MajorMinor(), v.Underscored(2))
	}
	if !v.HasPrefix(MustParse("8.9")) || v.HasPrefix(MustParse("8.8")) || !v.HasPrefix(MustParse("8")) {
		t.Error("HasPrefix wrong")
	}
	if v.Major() != 8 || v.Minor() != 9 || v.Part(3) != 29 || v.Part(7) != 0 {
		t.Error("part accessors wrong")
	}
	var z Version
	if !z.IsZero() || v.IsZero() {
		t.Error("IsZero wrong")
	}
	var u Version
	if err := u.UnmarshalText([]byte("12.4.1")); err != nil || u.String() != "12.4.1" {
		t.Errorf("UnmarshalText: %v %s", err, u)
	}
	if err := u.UnmarshalText([]byte("x")); err == nil {
		t.Error("UnmarshalText accepted x")
	}
}

func TestNew(t *testing.T) {
	v := New(12, 4)
	if v.String() != "12.4" || !v.Equal(MustParse("12.4")) || v.Parts() != 2 {
		t.Errorf("New(12, 4) = %v", v)
	}
	if New(9, 5, 1, 17).Compare(MustParse("9.5.1.17")) != 0 {
		t.Error("New(9,5,1,17) differs from Parse")
	}
}

func TestLongVersions(t *testing.T) {
	v := MustParse("13.3.3.3.1")
	if v.Part(4) != 1 || v.Part(5) != 0 || v.Parts() != 5 {
		t.Errorf("parts of %s: %d %d %d", v, v.Part(4), v.Part(5), v.Parts())
	}
	if got := v.Truncate(2).String(); got != "13.3" {
		t.Errorf("Truncate(2) = %s", got)
	}
	if got := v.Truncate(4).String(); got != "13.3.3.3" {
		t.Errorf("Truncate(4) = %s", got)
	}
	if got := MustParse("1.2.3.4.05.6").Truncate(5).String(); got != "1.2.3.4.5" {
		t.Errorf("Truncate(5) = %s, want canonical 1.2.3.4.5", got)
	}
	if got := MustParse("2025.03.1").MajorMinor().String(); got != "2025.3" {
		t.Errorf("MajorMinor = %s, want canonical 2025.3 (names built from it must not split)", got)
	}
	if !v.HasPrefix(MustParse("13.3.3.3")) || v.HasPrefix(MustParse("13.3.3.3.2")) || !v.HasPrefix(MustParse("13.3.3.3.1")) {
		t.Errorf("HasPrefix wrong for %s", v)
	}
	if got := New(1, 2, 3, 4, 5, 6).String(); got != "1.2.3.4.5.6" {
		t.Errorf("New = %s", got)
	}
	m := map[Version]bool{v: true}
	if !m[MustParse("13.3.3.3.1")] {
		t.Errorf("a long version is not usable as a map key")
	}
}
