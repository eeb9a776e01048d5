package fixup

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

func TestCheckPatch(t *testing.T) {
	good := sdk.Edit{Path: "include/crt/math_functions.h", Old: "a;", New: "a X;"}
	for _, tc := range []struct {
		name  string
		patch sdk.Patch
		want  string // "" for accepted
	}{
		{"ok", sdk.Patch{Name: "glibc-2.41", Why: "because", Edits: []sdk.Edit{good}}, ""},
		{"no name", sdk.Patch{Why: "because", Edits: []sdk.Edit{good}}, "expected a name"},
		{"name with a slash", sdk.Patch{Name: "a/b", Why: "because", Edits: []sdk.Edit{good}}, "expected a name"},
		{"name with a colon", sdk.Patch{Name: "a:b", Why: "because", Edits: []sdk.Edit{good}}, "expected a name"},
		{"no reason", sdk.Patch{Name: "p", Edits: []sdk.Edit{good}}, "no reason"},
		{"no edits", sdk.Patch{Name: "p", Why: "because"}, "no edits"},
		{"escapes", sdk.Patch{Name: "p", Why: "w", Edits: []sdk.Edit{{Path: "../x.h", Old: "a", New: "b"}}}, `edit of "../x.h"`},
		{"absolute", sdk.Patch{Name: "p", Why: "w", Edits: []sdk.Edit{{Path: "/etc/passwd", Old: "a", New: "b"}}}, `edit of "/etc/passwd"`},
		{"nothing to replace", sdk.Patch{Name: "p", Why: "w", Edits: []sdk.Edit{{Path: "x.h", Old: "", New: "b"}}}, "expected old text"},
		{"no change", sdk.Patch{Name: "p", Why: "w", Edits: []sdk.Edit{{Path: "x.h", Old: "a", New: "a"}}}, "expected old text"},
		{"NUL", sdk.Patch{Name: "p", Why: "w", Edits: []sdk.Edit{{Path: "x.h", Old: "a", New: "b\x00"}}}, "NUL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPatch(tc.patch)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
