package fixup_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// declaredSpec is the test plugin as a built-in described in process by d.
func declaredSpec(t *testing.T, d sdk.Description) fixup.Spec {
	s := spec(t, "product", "acme")
	s.SHA256, s.Builtin = "", true
	s.Describe = func() sdk.Description { return d }
	return s
}

// A built-in described in process starts only when a call needs it, once;
// its answer to Describe must be the one it gave in process; a third
// party's plugin is never described in process; after Close nothing
// starts (issue 25).
func TestStartOnDemand(t *testing.T) {
	ctx := context.Background()
	batch := &sdk.Batch{CUDA: "12.4.1", Product: "acme"}
	// What the test plugin answers in its mode "product".
	same := sdk.Description{Name: "test-product", Products: []string{"acme"},
		Facts: []sdk.ProductFacts{{Product: "acme", Base: "https://acme.example", Path: "pub/acme"}}}
	for _, tc := range []struct {
		name     string
		spec     fixup.Spec
		close    bool   // Close before the call
		startErr string // Start's error
		callErr  string // Call's error
		want     int    // processes started, by the end
	}{
		{name: "started on the first call only", spec: declaredSpec(t, same), want: 1},
		{name: "other answer", spec: declaredSpec(t, sdk.Description{Name: "test-product", Products: []string{"acme"}}),
			callErr: "plugin test-product: Describe: answered other than the same plugin described in this process", want: 1},
		{name: "closed", spec: declaredSpec(t, same), close: true, callErr: "plugin test-product: start: the plugin host is closed", want: 0},
		{name: "bad in-process answer", spec: declaredSpec(t, sdk.Description{Name: "../x", Products: []string{"acme"}}), startErr: "plugin testplugin: Describe (in process):", want: 0},
		{name: "third party", spec: func() fixup.Spec {
			s := spec(t, "product", "acme")
			s.Describe = declaredSpec(t, same).Describe
			return s
		}(),
			startErr: "plugin testplugin: only a built-in is described in process", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids := pluginPIDs(t)
			h, err := fixup.Start(ctx, []fixup.Spec{tc.spec}, fast)
			if tc.startErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.startErr) {
					t.Fatalf("Start: error = %v, want %q", err, tc.startErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(pids()); n != 0 {
					t.Fatalf("Start started %d processes, want none", n)
				}
				if tc.close {
					h.Close()
				}
				// A second call finds the plugin started.
				if _, err = h.Call(ctx, batch); err == nil {
					_, err = h.Call(ctx, batch)
				}
				h.Close()
				var pe *fixup.PluginError
				switch {
				case tc.callErr == "" && err != nil:
					t.Fatal(err)
				case tc.callErr != "" && (!errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.callErr)):
					t.Fatalf("Call: error = %v, want a *PluginError %q", err, tc.callErr)
				}
			}
			if n := len(pids()); n != tc.want {
				t.Errorf("%d processes started, want %d", n, tc.want)
			}
		})
	}
}
