package buildfile

import (
	"runtime"
	"sync"

	"github.com/bazelbuild/buildtools/build"
)

// Formatter formats files while a generator is still building the rest,
// and drops each syntax tree once it is printed. A generator that built
// every tree first and formatted at the end held all of them at once: for
// the full matrix, about 125 MB of the host's 156 MB live heap
// (docs/benchmarks.md, issue 25).
//
// Put blocks while every worker is busy, so a generator that outruns the
// formatting waits instead of piling trees up. Tree waits for the last file.
type Formatter struct {
	work    chan *formatJob
	wg      sync.WaitGroup
	jobs    []*formatJob // in Put order, so a path put twice keeps the last
	pending Tree
}

type formatJob struct {
	file      *build.File
	path      string
	canonical bool
	out       []byte
}

// NewFormatter starts one worker per usable CPU.
func NewFormatter() *Formatter {
	f := &Formatter{work: make(chan *formatJob), pending: Tree{}}
	for range runtime.GOMAXPROCS(0) {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for j := range f.work {
				if j.canonical {
					j.out = FormatCanonical(j.file)
				} else {
					j.out = Format(j.file)
				}
				j.file = nil
			}
		}()
	}
	return f
}

// Put hands over a finished file to be formatted (Format). The caller must
// not change it afterwards.
func (f *Formatter) Put(file *build.File) { f.put(file, false) }

// PutCanonical hands over a file built in buildifier's order already
// (FormatCanonical).
func (f *Formatter) PutCanonical(file *build.File) { f.put(file, true) }

func (f *Formatter) put(file *build.File, canonical bool) {
	j := &formatJob{file: file, path: file.Path, canonical: canonical}
	f.jobs = append(f.jobs, j)
	f.work <- j
}

// Set records a file that needs no formatting (a fixed text).
func (f *Formatter) Set(path string, b []byte) {
	f.jobs = append(f.jobs, &formatJob{path: path, out: b})
}

// Tree waits for every file and returns them. The Formatter is done then.
func (f *Formatter) Tree() Tree {
	close(f.work)
	f.wg.Wait()
	for _, j := range f.jobs {
		f.pending[j.path] = j.out
	}
	return f.pending
}
