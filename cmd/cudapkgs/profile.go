package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles writes the host's CPU profile to $CUDAPKGS_CPUPROFILE and
// its heap profile (allocations since start, and what is live at the end)
// to $CUDAPKGS_MEMPROFILE, for the speed work in docs/benchmarks.md: a
// whole command profiled as a user runs it, not a benchmark's slice of it.
// A built-in plugin (this binary, started as "plugin serve NAME") inherits
// the variables but writes nothing: the host ends its process group, so a
// plugin's profile would never be flushed, and its CPU is counted whole by
// the benchmarks' getrusage of the children instead. The returned function
// ends the profiles.
func startProfiles(args []string) func() {
	cpu, mem := os.Getenv("CUDAPKGS_CPUPROFILE"), os.Getenv("CUDAPKGS_MEMPROFILE")
	if cpu == "" && mem == "" || len(args) > 0 && args[0] == "plugin" {
		return func() {}
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cudapkgs: CUDAPKGS_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "cudapkgs: CUDAPKGS_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		cpuFile = f
	}
	if mem != "" {
		runtime.MemProfileRate = 4096
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			// The allocation profile is as of the last collection.
			runtime.GC()
			f, err := os.Create(mem)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cudapkgs: CUDAPKGS_MEMPROFILE: %v\n", err)
				return
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintf(os.Stderr, "cudapkgs: CUDAPKGS_MEMPROFILE: %v\n", err)
			}
		}
	}
}
