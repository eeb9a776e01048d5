// Command benchfloor measures the floor of `cudapkgs generate` for
// integration/bench-generate: reading and decoding every manifest
// (manifest.LoadDir) plus writing the same output bytes, with nothing in
// between. The output bytes are a copy of a generated tree (-tree), read into
// memory before the clock starts; they are written to -out (which must not
// exist) under the same file names. It prints its own elapsed milliseconds;
// bench-generate times the whole process instead, as it does cudapkgs.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cudapkgs/cudapkgs/core/manifest"
)

func main() {
	manifests := flag.String("manifests", "", "folder of manifests")
	tree := flag.String("tree", "", "a generated tree whose bytes to write")
	out := flag.String("out", "", "folder to write the tree to (must not exist)")
	flag.Parse()
	if *manifests == "" || *tree == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: benchfloor -manifests DIR -tree DIR -out DIR")
		os.Exit(2)
	}
	files, err := readTree(*tree)
	if err != nil {
		fail(err)
	}
	if _, err := os.Stat(*out); err == nil {
		fail(fmt.Errorf("%s exists", *out))
	}
	start := time.Now()
	coll, err := manifest.LoadDir(*manifests)
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		full := filepath.Join(*out, f.path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(full, f.data, 0o644); err != nil {
			fail(err)
		}
	}
	elapsed := time.Since(start)
	fmt.Printf("%.1f\n", float64(elapsed.Microseconds())/1000)
	fmt.Fprintf(os.Stderr, "benchfloor: %d manifests decoded, %d files written\n", len(coll.All()), len(files))
}

type file struct {
	path string
	data []byte
}

func readTree(dir string) ([]file, error) {
	var files []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, file{rel, b})
		return err
	})
	return files, err
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "benchfloor: %v\n", err)
	os.Exit(1)
}
