// Command benchrun runs one command and prints what it cost, for
// integration/bench-generate: its wall time, its CPU time (user and system,
// of the process and of every child it waited for, such as cudapkgs' plugin
// processes) and its peak resident memory (the largest of the process and
// those children), as "wall_us cpu_us maxrss_kib" on stdout. The command's
// own output goes to -stdout and -stderr (files; default: discarded), and
// its exit status becomes benchrun's.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	stdout := flag.String("stdout", "", "file for the command's stdout")
	stderr := flag.String("stderr", "", "file for the command's stderr")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchrun [-stdout FILE] [-stderr FILE] COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	var err error
	if cmd.Stdout, err = sink(*stdout); err != nil {
		fail(err)
	}
	if cmd.Stderr, err = sink(*stderr); err != nil {
		fail(err)
	}
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)
	ps := cmd.ProcessState
	if ps == nil {
		fail(runErr)
	}
	rss, ok := maxRSS(ps)
	if !ok {
		fail(fmt.Errorf("no resource usage from %s on this system", flag.Arg(0)))
	}
	cpu := ps.UserTime() + ps.SystemTime()
	fmt.Printf("%d %d %d\n", wall.Microseconds(), cpu.Microseconds(), rss)
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "benchrun: %s: %v\n", flag.Arg(0), runErr)
		os.Exit(1)
	}
}

// sink opens where a stream goes; "" discards it.
func sink(path string) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	return os.Create(path)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(2)
}
