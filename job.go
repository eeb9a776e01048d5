package cudapkgs

import (
	"context"
	"errors"
	"time"

	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/core/stamp"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// Job is one run of Generate.
type Job struct {
	// Inputs are what the run is made from; their zero fields mean what
	// Inputs.WithDefaults says.
	Inputs Inputs
	// Format is what to write; "" is Bazel.
	Format Format
	// Name is the repository's (or cell's) name in the workspace; "" is
	// "cuda".
	Name string
	// Out is the folder to write to, created if missing.
	Out string
	// Force regenerates even when Out is up to date with the inputs.
	Force bool
	// Stamp are the caller's own inputs, hashed into the stamp with the
	// run's: whatever else decides the output (the command line hashes its
	// flags and working folder). Generate adds the programs that serve the
	// built-in plugins, the workspace, the configuration and the manifests
	// itself.
	Stamp stamp.Inputs
	// OnWait, when not nil, is called once when another run holds the lock
	// on Out; Generate then waits for it (or for ctx).
	OnWait func(lock string)
}

// Result says what Generate did.
type Result struct {
	// UpToDate: Out's stamp matched the inputs, nothing was written and
	// no plugin started; the other fields are zero but Leftover (the
	// temporary folders of killed runs are still removed).
	UpToDate bool
	// Written, Unchanged and Removed count Out's files.
	Written, Unchanged, Removed int
	// InPlace and Leftover are outdir.Stats': the files were replaced one
	// by one, and why; temporary folders that could not be removed, and
	// why.
	InPlace, Leftover string
	// Warnings are every warning of the run (each also told to
	// Inputs.Warn as it was found).
	Warnings []string
	// Local says what an installed CUDA served; nil without one.
	Local *LocalReport
	// StampErr, when not nil, is why Out got no stamp although it could
	// have had one: the next run regenerates.
	StampErr error
	// SnapshotTaken, when the snapshot built into cudapkgs served a
	// release, is the day it was taken (NVIDIA may have released newer
	// manifests since); zero otherwise.
	SnapshotTaken time.Time
}

// OutputError is a failure writing Out; its message starts with the folder
// as the job named it.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// ErrNoOut is a Job without an output folder.
var ErrNoOut = errors.New("Job.Out: expected the folder to write to")

// Generate is the whole run: it hashes the inputs known before it starts
// and, unless Force, answers UpToDate when Out's stamp still matches them
// (without starting a plugin); else it evaluates the configuration, builds
// and fixes the package sets, emits them in the job's format, stamps the
// tree with every input the run read, and writes it to Out in one swap
// (package outdir). Out is exactly as it was when an error is returned.
func Generate(ctx context.Context, job Job) (*Result, error) {
	if job.Out == "" {
		return nil, ErrNoOut
	}
	if job.Format == "" {
		job.Format = Bazel
	}
	if job.Name == "" {
		job.Name = "cuda"
	}
	in, err := job.Inputs.WithDefaults()
	if err != nil {
		return nil, err
	}
	// The inputs known before evaluating are hashed first: a manifest that
	// changes during the run makes the next run regenerate rather than
	// trust this one's output. Any doubt only costs the fast path.
	pre, preErr := digest(in, job.Stamp)
	if !job.Force && preErr == nil && stamp.UpToDate(job.Out, pre) {
		// A run killed after its swap left Out up to date, and its old
		// tree beside it: nothing else would remove that.
		return &Result{UpToDate: true, Leftover: outdir.RemoveLeftovers(job.Out)}, nil
	}
	r, err := evaluate(ctx, in)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sets, err := r.Sets(ctx)
	if err != nil {
		return nil, err
	}
	tree, local, err := r.emit(sets, job.Format, job.Name)
	if err != nil {
		return nil, err
	}
	res := &Result{Local: local}
	// An installed CUDA can change under the output (an upgrade): no
	// stamp, so the next run reads it again. The stamp goes in with the
	// tree, in the same swap.
	var st []byte
	if preErr == nil && r.Config.LocalCUDA() == "" {
		if st, err = stamp.Make(pre, r.readInputs(), tree); err != nil {
			res.StampErr = err
			st = nil
		}
	}
	stats, err := outdir.Write(ctx, job.Out, tree, outdir.Options{Stamp: st, OnWait: job.OnWait})
	if err != nil {
		return nil, &OutputError{err}
	}
	res.Written, res.Unchanged, res.Removed = stats.Written, stats.Unchanged, stats.Removed
	res.InPlace, res.Leftover = stats.InPlace, stats.Leftover
	res.Warnings = r.Warnings.All()
	res.SnapshotTaken = r.snapshotTaken()
	return res, nil
}

// digest hashes the caller's stamp inputs and the run's own known before
// evaluating.
func digest(in Inputs, own stamp.Inputs) ([]byte, error) {
	before, err := in.stampInputs()
	if err != nil {
		return nil, err
	}
	return stamp.Digest(append(own[:len(own):len(own)], before...))
}

// snapshotTaken is the day of the snapshot built into cudapkgs when it
// served a release of the run, else zero.
func (r *Run) snapshotTaken() time.Time {
	for _, m := range r.Collection.All() {
		if r.Collection.Origin(m) != SourceSnapshot {
			continue
		}
		info, err := snapshot.Embedded()
		if err != nil {
			return time.Time{}
		}
		taken, err := info.Time()
		if err != nil {
			return time.Time{}
		}
		return taken
	}
	return time.Time{}
}
