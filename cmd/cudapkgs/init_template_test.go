package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/internal/golden"
)

// The cudapkgs.star init writes, from config.Table's rows: with no flag,
// every option's example commented out; with flags, their calls. Refresh
// with go test ./cmd/cudapkgs -run TestStarTemplateGolden -update.
func TestStarTemplateGolden(t *testing.T) {
	root := "/ws"
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"none.star", nil},
		{"flags.star", []string{"--cuda", "12.4.1,12.6", "--forward-compat", "--platform", "linux-x86_64",
			"--pin", "cudnn=9,cudnn@12.4=8.9", "--mirror", "https://a.example/nvidia",
			"--local-cuda", "/ws/opt/cuda", "--local-components", "cuda_nvcc,cuda_cudart"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			cmd := &cobra.Command{Use: "init"}
			f := addConfigFlags(cmd)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			text, err := starTemplate(f, root, filepath.Join(root, "third_party", "cuda"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(text, "\n") < 10 {
				t.Fatalf("template of %d lines", strings.Count(text, "\n"))
			}
			golden.File(t, filepath.Join("testdata", "init", tc.file), []byte(text))
		})
	}
}
