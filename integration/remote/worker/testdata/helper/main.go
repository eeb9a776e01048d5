// Command helper is a static test program for the chroot test: it prints its
// working directory and environment, and writes its arguments to out/args.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(wd)
	fmt.Println(strings.Join(os.Environ(), " "))
	if err := os.WriteFile("out/args", []byte(strings.Join(os.Args[1:], " ")), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}
