package fixup_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
)

// A plugin's self-description is checked before it is printed or used: a
// name or product outside the package-name grammar, text with terminal
// escapes or over its limit, and an answer over sdk.MaxDescribe are
// refused, naming the plugin, the call, the field and what was expected; the
// message quotes the value escaped and cut.
func TestDescribeChecked(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"describe-badname", `Describe: name "../../x \"$(id)": character '.' at byte 0: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most 128 bytes`},
		{"describe-escname", `Describe: name "x\x1b]0;pwned\a\x1b[2J": character '\x1b' at byte 1: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most 128 bytes`},
		{"describe-longname", `Describe: name "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"… (200 bytes): 200 bytes long: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most 128 bytes`},
		{"describe-hugename", "Describe: its answer is 8.0 MiB, larger than the 1.0 MiB limit for a Describe answer"},
		{"describe-badproduct", `Describe: product "../../x \"$(id)": character '.' at byte 0: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most 128 bytes`},
		{"describe-dupproduct", "Describe: product cudnn: listed twice: expected each product once"},
		{"describe-escfact", `Describe: facts of product cudnn: base "https://example.com/\x1b[31m": control or format character U+001B: expected printable text`},
		{"describe-longfact", `Describe: facts of product cudnn: base "https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"… (2008 bytes): 2008 bytes: expected at most 1024`},
		{"describe-badrename", `Describe: rename: package "x\u202ey": character '\u202e' at byte 1: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most 128 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, tt.mode, "cudnn")}, fast)
			if err == nil {
				h.Close()
				t.Fatalf("started: %+v", h.Plugins())
			}
			var pe *fixup.PluginError
			if !errors.As(err, &pe) || pe.Plugin != "testplugin" || pe.Call != "Describe" {
				t.Fatalf("error = %#v", err)
			}
			msg := err.Error()
			if want := "plugin testplugin: " + tt.want; !strings.HasPrefix(msg, want) {
				t.Errorf("error:\n got %.300s\nwant %s", msg, want)
			}
			if strings.ContainsAny(msg, "\x1b\x07\u202e") || len(msg) > 2000 {
				t.Errorf("error has raw control characters or is %d bytes: %q", len(msg), msg[:min(len(msg), 300)])
			}
		})
	}
}
