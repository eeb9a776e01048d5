package source

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// Fetched: File was downloaded from URL (Size bytes) and cached.
	Fetched EventKind = iota
	// Cached: File was already in the cache (and matches the lock file).
	Cached
	// Listed: the folder listing at URL names Count releases of Product.
	Listed
	// Retrying: URL failed with Err; try number Try of Tries follows after Delay.
	Retrying
	// Skipped: URL failed with Err; Next is tried instead.
	Skipped
	// Waiting: another run holds the cache lock File; this one waits.
	Waiting
	// Unlisted: one source's listing of Product failed with Err; the other
	// sources' listings serve.
	Unlisted
)

// Event is one thing worth telling the user during a fetch.
type Event struct {
	Kind    EventKind
	Product string
	File    string // a Key such as "cuda/redistrib_12.4.1.json", or a path
	URL     string
	Next    string
	Size    int64
	Count   int
	Try     int
	Tries   int
	Delay   time.Duration
	Err     error
}

// String is the event as one plain line.
func (e Event) String() string {
	switch e.Kind {
	case Fetched:
		return fmt.Sprintf("fetched %s (%d bytes) from %s", e.File, e.Size, e.URL)
	case Cached:
		return "cached " + e.File
	case Listed:
		return fmt.Sprintf("listed %s: %d releases at %s", e.Product, e.Count, e.URL)
	case Retrying:
		return fmt.Sprintf("retrying %s in %v (try %d of %d): %v", e.URL, e.Delay, e.Try, e.Tries, e.Err)
	case Skipped:
		return fmt.Sprintf("skipping %s: %v; trying %s", e.URL, e.Err, e.Next)
	case Waiting:
		return fmt.Sprintf("waiting for another cudapkgs run to release %s", e.File)
	case Unlisted:
		return fmt.Sprintf("not listed %s at one source, the others' listings serve: %v", e.Product, e.Err)
	}
	return fmt.Sprintf("event %d", int(e.Kind))
}

// Progress receives a fetch's events. Fetch calls it from several goroutines
// at once; implementations must be safe for that.
type Progress interface {
	// Start announces how many manifests the fetch will deliver.
	Start(total int)
	// Report tells of one event; Fetched and Cached events each deliver one
	// manifest.
	Report(Event)
	// Finish ends the output.
	Finish()
}

// NewProgress returns a progress bar writing to w when terminal is true, and
// one plain line per event otherwise. A nil w discards everything.
func NewProgress(w io.Writer, terminal bool) Progress {
	if w == nil {
		return nopProgress{}
	}
	if terminal {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w}
}

type nopProgress struct{}

func (nopProgress) Start(int)    {}
func (nopProgress) Report(Event) {}
func (nopProgress) Finish()      {}

// lineProgress writes one line per event.
type lineProgress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *lineProgress) Start(int) {}
func (p *lineProgress) Finish()   {}
func (p *lineProgress) Report(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, e.String())
}

// barProgress draws a bar counting manifests; other events (retries, skipped
// mirrors, waiting for the lock) are printed as lines above it.
type barProgress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("manifests"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(0),
		progressbar.OptionSetRenderBlankState(true),
	)
}

func (p *barProgress) Report(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.bar != nil && (e.Kind == Fetched || e.Kind == Cached):
		p.bar.Describe(e.File)
		_ = p.bar.Add(1)
	case e.Kind == Fetched || e.Kind == Cached || e.Kind == Listed:
		// Before Start: nothing to count yet, and listings need no line.
	case p.bar != nil:
		_ = p.bar.Clear()
		fmt.Fprintln(p.w, e.String())
		_ = p.bar.RenderBlank()
	default:
		fmt.Fprintln(p.w, e.String())
	}
}

func (p *barProgress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}
