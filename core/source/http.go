package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Doer sends HTTP requests; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Defaults for Options' zero values.
const (
	DefaultTimeout       = time.Minute
	DefaultStallTimeout  = 30 * time.Second
	DefaultAttempts      = 4
	DefaultRetryDelay    = 500 * time.Millisecond
	DefaultMaxRetryDelay = 10 * time.Second
	// MaxSize bounds a downloaded body; NVIDIA's manifests are under 100 kB.
	MaxSize = 32 << 20
)

// StatusError is an HTTP response other than 200 OK.
type StatusError struct {
	Code       int
	Status     string
	RetryAfter time.Duration // from a Retry-After header in seconds, or 0
}

func (e *StatusError) Error() string { return "HTTP " + e.Status }

// Attempt is one failed try of one URL.
type Attempt struct {
	URL string
	Try int // 1-based, per URL
	Err error
	// Refused is a body that arrived but was not accepted (it did not parse,
	// or did not match the lock file); Err then names the URL itself.
	Refused bool
}

func (a Attempt) String() string {
	if a.Refused {
		return a.Err.Error()
	}
	return fmt.Sprintf("%s (try %d): %v", a.URL, a.Try, a.Err)
}

// FetchError is a download that failed at every source. It lists every try,
// in order.
type FetchError struct {
	What     string // "cuda/redistrib_12.4.1.json", or "cuda release list"
	Attempts []Attempt
}

func (e *FetchError) Error() string {
	var b strings.Builder
	urls := map[string]bool{}
	for _, a := range e.Attempts {
		urls[a.URL] = true
	}
	s := "s"
	if len(urls) == 1 {
		s = ""
	}
	fmt.Fprintf(&b, "%s: every source failed (%d URL%s tried):", e.What, len(urls), s)
	for _, a := range e.Attempts {
		b.WriteString("\n  ")
		b.WriteString(a.String())
	}
	return b.String()
}

// Unwrap returns every attempt's error, so errors.As finds a *MismatchError.
func (e *FetchError) Unwrap() []error {
	out := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		out[i] = a.Err
	}
	return out
}

// downloader gets URLs with timeouts and retries.
type downloader struct {
	client        Doer
	timeout       time.Duration // one try, whole
	stall         time.Duration // one try, longest wait for the next byte
	attempts      int           // tries per URL
	delay, maxDel time.Duration
	progress      Progress
}

// get tries the URLs in order. Each URL is retried (with exponential backoff)
// on network errors, timeouts, 5xx and 429; any other failure moves on to the
// next URL. accept checks a body; its error refuses the body and moves on.
// When the caller's context ends, get returns its error at once.
//
// accept runs within the try's time limit (its ctx ends with the try): a
// body that takes longer to check than is left of --timeout ends the try
// with a *checkTimeoutError, which is not retried (the same bytes would
// take as long again).
func (d *downloader) get(ctx context.Context, what string, urls []string, accept func(ctx context.Context, u string, body []byte) error) (string, []byte, error) {
	var failed []Attempt
	for i, u := range urls {
		for try := 1; ; try++ {
			body, err := d.once(ctx, u, accept)
			if ctx.Err() != nil {
				return "", nil, fmt.Errorf("%s: %w", what, context.Cause(ctx))
			}
			var ref *refusal
			if errors.As(err, &ref) {
				failed = append(failed, Attempt{URL: u, Try: try, Err: ref.err, Refused: true})
				d.skip(i, urls, failed)
				break
			}
			if err == nil {
				return u, body, nil
			}
			failed = append(failed, Attempt{URL: u, Try: try, Err: err})
			if !retryable(err) || try >= d.attempts {
				d.skip(i, urls, failed)
				break
			}
			wait := d.backoff(try, err)
			d.progress.Report(Event{Kind: Retrying, URL: u, Try: try + 1, Tries: d.attempts, Delay: wait, Err: err})
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return "", nil, fmt.Errorf("%s: %w", what, context.Cause(ctx))
			case <-t.C:
			}
		}
	}
	return "", nil, &FetchError{What: what, Attempts: failed}
}

// skip reports moving on from URL i when another URL follows.
func (d *downloader) skip(i int, urls []string, failed []Attempt) {
	if i+1 < len(urls) {
		last := failed[len(failed)-1]
		d.progress.Report(Event{Kind: Skipped, URL: last.URL, Err: last.Err, Next: urls[i+1]})
	}
}

func (d *downloader) backoff(try int, err error) time.Duration {
	wait := d.delay << (try - 1)
	if wait > d.maxDel || wait <= 0 {
		wait = d.maxDel
	}
	var se *StatusError
	if errors.As(err, &se) && se.RetryAfter > wait {
		wait = min(se.RetryAfter, d.maxDel)
	}
	return wait
}

// retryable reports whether a failed try is worth repeating on the same URL.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusTooManyRequests
	}
	var tl *tooLargeError
	var re *redirectError
	var ct *checkTimeoutError
	return !errors.As(err, &tl) && !errors.As(err, &re) && !errors.As(err, &ct)
}

// refusal is a body that arrived in time and that accept refused.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

// checkTimeoutError is a try whose time ran out while its body was being
// checked (parsed), after it had arrived.
type checkTimeoutError struct {
	size  int
	cause error
}

func (e *checkTimeoutError) Error() string {
	return fmt.Sprintf("%v while checking the %d bytes that arrived (the time limit of a try covers the download and the parse; nothing was cached)", e.cause, e.size)
}

func (e *checkTimeoutError) Unwrap() error { return e.cause }

// maxRedirects bounds the redirects one try follows.
const maxRedirects = 10

// redirectError is a redirect loop, or a chain longer than maxRedirects: the
// server will answer the same way next time, so it is not retried.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// checkRedirect is the default client's redirect policy: a loop is named as
// one at once, and a long chain is cut at maxRedirects. A redirect to a
// scheme other than http and https (file://, ftp://, data:) or from https
// down to http is refused at once: the server will answer the same way on
// every try, and following a downgrade would hand a manifest not yet in the
// lock to anyone on the path. A redirect to another host over https is
// followed: mirrors (Artifactory, Nexus) and CDNs send clients to blob
// storage elsewhere, and what arrives is held to the lock's sha256 and
// parsed all the same (docs/sources.md, "Downloads").
func checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1].URL
	switch req.URL.Scheme {
	case "http", "https":
	default:
		return &redirectError{fmt.Sprintf("refused a redirect from %s to %s: only http and https URLs are followed", prev.Redacted(), req.URL.Redacted())}
	}
	if prev.Scheme == "https" && req.URL.Scheme == "http" {
		return &redirectError{fmt.Sprintf("refused a redirect from %s to %s: from https down to http", prev.Redacted(), req.URL.Redacted())}
	}
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return &redirectError{fmt.Sprintf("redirect loop: %s redirects back to %s after %d redirect(s)", via[len(via)-1].URL, req.URL, len(via))}
		}
	}
	if len(via) >= maxRedirects {
		return &redirectError{fmt.Sprintf("stopped after %d redirects (last to %s)", len(via), req.URL)}
	}
	return nil
}

// defaultClient sends requests when Options.Client is nil.
var defaultClient = &http.Client{CheckRedirect: checkRedirect}

type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("body larger than %d bytes", e.limit) }

// once makes one try. The try ends after d.timeout in all, or when no byte
// arrives for d.stall (before the headers or between two reads of the body).
// The body is then given to accept under the same time limit (the stall
// timer stopped): its refusal is returned as a *refusal, the end of the
// limit as a *checkTimeoutError.
func (d *downloader) once(ctx context.Context, u string, accept func(ctx context.Context, u string, body []byte) error) ([]byte, error) {
	tctx, cancelT := context.WithTimeoutCause(ctx, d.timeout, fmt.Errorf("timed out after %v", d.timeout))
	defer cancelT()
	sctx, cancelS := context.WithCancelCause(tctx)
	defer cancelS(nil)
	stalled := fmt.Errorf("stalled: no data for %v", d.stall)
	timer := time.AfterFunc(d.stall, func() { cancelS(stalled) })
	defer timer.Stop()

	req, err := http.NewRequestWithContext(sctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "cudapkgs")
	resp, err := d.client.Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			return nil, re
		}
		if strings.Contains(err.Error(), "stopped after 10 redirects") {
			// net/http's own policy, in a client the caller gave.
			return nil, &redirectError{"stopped after 10 redirects"}
		}
		var ue *url.Error
		if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme") {
			// A caller's client followed a redirect to file:// or
			// ftp://: every try would end the same way.
			return nil, &redirectError{fmt.Sprintf("refused %s: %v (only http and https URLs are followed)", ue.URL, ue.Err)}
		}
		return nil, tryError(sctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		se := &StatusError{Code: resp.StatusCode, Status: resp.Status}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			se.RetryAfter = time.Duration(s) * time.Second
		}
		return nil, se
	}
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(chunk)
		if n > 0 {
			timer.Reset(d.stall)
			buf.Write(chunk[:n])
			if buf.Len() > MaxSize {
				return nil, &tooLargeError{MaxSize}
			}
		}
		if err == io.EOF {
			timer.Stop()
			body := buf.Bytes()
			if err := accept(tctx, u, body); err != nil {
				if tctx.Err() != nil && ctx.Err() == nil {
					return nil, &checkTimeoutError{size: len(body), cause: context.Cause(tctx)}
				}
				return nil, &refusal{err}
			}
			return body, nil
		}
		if err != nil {
			return nil, tryError(sctx, err)
		}
	}
}

// tryError names why a try failed: a stall or timeout (the context's cause)
// rather than "context canceled", and the network error without the
// "Get <url>:" prefix (the URL is named by the caller).
func tryError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
