package main

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// bot keeps one Remote Workers bot session alive and runs its leases.
//
// What BuildGrid 0.4.x does with a session, and so what this loop relies on:
//   - CreateBotSession and UpdateBotSession long-poll for work for up to 80%
//     of the call's deadline, but only while the bot is below its capacity
//     (worker config "capacity", default 1) and nothing changed; otherwise
//     they return at once. So an idle bot just calls again, and a busy one
//     paces its keepalive updates itself.
//   - Leases arrive ACTIVE (older versions: PENDING) with Any(Action) or
//     Any(Digest of the Action) as payload. The bot echoes every lease it
//     holds in each update, and reports a finished one once as COMPLETED with
//     status and result = Any(ActionResult).
//   - A cancelled job's lease is dropped from the session the server returns
//     (older versions mark it CANCELLED instead); either way the bot kills it.
//     A bot must never send CANCELLED itself.
//   - The session's version must be echoed so the server can tell whether
//     its lease set changed.
type bot struct {
	name         string
	instance     string
	worker       *rwpb.Worker
	capacity     int
	client       rwpb.BotsClient
	runner       *runner
	pollTimeout  time.Duration // deadline of one Create/UpdateBotSession call
	keepalive    time.Duration // update interval while at capacity
	maxBackoff   time.Duration
	logf         func(format string, args ...any)
	wake         chan struct{} // a job finished: report it now
	jobsFinished sync.WaitGroup

	mu      sync.Mutex
	session *rwpb.BotSession // as last returned by the server, leases aside
	jobs    map[string]*job  // by lease id
}

type job struct {
	lease  *rwpb.Lease // what is reported: ACTIVE, then COMPLETED with the result
	cancel context.CancelFunc
	done   bool
}

// workerProto describes the bot. BuildGrid matches actions against the
// properties of the first device (the "primary device" in the API's words);
// worker.properties gets the same list, as buildbox-worker does.
func workerProto(name string, props []property, capacity int) *rwpb.Worker {
	dev := &rwpb.Device{Handle: name}
	w := &rwpb.Worker{Devices: []*rwpb.Device{dev}}
	for _, p := range sortedProps(props) {
		dev.Properties = append(dev.Properties, &rwpb.Device_Property{Key: p.name, Value: p.value})
		w.Properties = append(w.Properties, &rwpb.Worker_Property{Key: p.name, Value: p.value})
	}
	w.Configs = append(w.Configs, &rwpb.Worker_Config{Key: "capacity", Value: strconv.Itoa(capacity)})
	return w
}

// sortedProps returns a bot's declared properties in a stable order.
func sortedProps(ps []property) []property {
	out := append([]property(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].value < out[j].value
	})
	return out
}

func newBot(name, instance string, props []property, capacity int, client rwpb.BotsClient, r *runner, logf func(string, ...any)) *bot {
	return &bot{
		name:        name,
		instance:    instance,
		worker:      workerProto(name, props, capacity),
		capacity:    capacity,
		client:      client,
		runner:      r,
		pollTimeout: 30 * time.Second,
		keepalive:   20 * time.Second,
		maxBackoff:  5 * time.Second,
		logf:        logf,
		wake:        make(chan struct{}, 1),
		jobs:        map[string]*job{},
	}
}

// run serves leases until ctx is cancelled, then kills running actions.
func (b *bot) run(ctx context.Context) {
	backoff := time.Duration(0)
	fail := func() {
		backoff = min(max(2*backoff, 500*time.Millisecond), b.maxBackoff)
		sleep(ctx, backoff, nil)
	}
	for ctx.Err() == nil {
		if b.session == nil {
			s, err := b.createSession(ctx)
			if err != nil {
				b.logf("CreateBotSession: %v", err)
				fail()
				continue
			}
			backoff = 0
			b.logf("bot session %s", s.Name)
			b.handleLeases(ctx, s, nil)
			continue
		}

		req, reported := b.request()
		start := time.Now()
		resp, err := b.update(ctx, req)
		switch code := status.Code(err); {
		case err == nil:
		case ctx.Err() != nil:
			continue
		case code == codes.Canceled:
			continue // we cut the long poll short to report a finished job
		case code == codes.Unavailable, code == codes.DeadlineExceeded, code == codes.ResourceExhausted,
			code == codes.Internal, code == codes.Unknown:
			b.logf("UpdateBotSession: %v (retrying)", err)
			fail()
			continue
		default:
			// INVALID_ARGUMENT, NOT_FOUND, DATA_LOSS, ABORTED: the server no
			// longer knows this session (restart, expiry, or a newer session
			// for this bot id). Its leases were requeued; start over.
			b.logf("UpdateBotSession: %v (creating a new session)", err)
			b.dropAll()
			b.mu.Lock()
			b.session = nil
			b.mu.Unlock()
			fail()
			continue
		}
		backoff = 0
		gotNew := b.handleLeases(ctx, resp, reported)

		// Pace the next call: at once if a job finished meanwhile; at
		// keepalive intervals while at capacity (the server will not
		// long-poll then); and never in a tight loop.
		b.mu.Lock()
		busy, pending := len(b.jobs) >= b.capacity, b.hasFinishedLocked()
		b.mu.Unlock()
		switch {
		case pending:
		case busy:
			sleep(ctx, b.keepaliveInterval(resp, time.Now()), b.wake)
		case !gotNew && len(reported) == 0 && time.Since(start) < time.Second:
			sleep(ctx, time.Second, b.wake)
		}
	}
	b.dropAll()
	b.jobsFinished.Wait()
}

// keepaliveInterval is how long a busy bot may wait before its next update.
// BuildGrid reaps a session not updated by its expire_time (its
// bot-session-keepalive-timeout, which may be as short as a few seconds) and
// requeues its jobs, so update well before that. now is the caller's clock
// reading, so the computation is exact in tests.
func (b *bot) keepaliveInterval(s *rwpb.BotSession, now time.Time) time.Duration {
	d := b.keepalive
	if exp := s.GetExpireTime(); exp != nil && exp.IsValid() {
		d = min(d, exp.AsTime().Sub(now)/3) // past expiry: at once, the floor below
	}
	return max(d, 100*time.Millisecond)
}

// sleep waits for d, ctx or a wake-up.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-wake:
	}
}

func (b *bot) createSession(ctx context.Context) (*rwpb.BotSession, error) {
	ctx, cancel := context.WithTimeout(ctx, b.pollTimeout)
	defer cancel()
	return b.client.CreateBotSession(ctx, &rwpb.CreateBotSessionRequest{
		Parent: b.instance,
		BotSession: &rwpb.BotSession{
			BotId:  b.name,
			Status: rwpb.BotStatus_OK,
			Worker: b.worker,
		},
	})
}

// update sends one UpdateBotSession. A job finishing cancels the call so
// that its result is reported without waiting out the long poll.
func (b *bot) update(ctx context.Context, req *rwpb.UpdateBotSessionRequest) (*rwpb.BotSession, error) {
	ctx, cancel := context.WithTimeout(ctx, b.pollTimeout)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-b.wake:
			cancel()
		case <-stop:
		}
	}()
	return b.client.UpdateBotSession(ctx, req)
}

// request builds the next update from the session and the jobs, and returns
// the ids of the leases it reports as COMPLETED.
func (b *bot) request() (*rwpb.UpdateBotSessionRequest, map[string]bool) {
	// Any pending wake-up is for a job this request reports; left in the
	// channel it would cancel the very call that reports it.
	select {
	case <-b.wake:
	default:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := proto.Clone(b.session).(*rwpb.BotSession)
	s.Status = rwpb.BotStatus_OK
	s.Worker = b.worker
	s.Leases = nil
	reported := map[string]bool{}
	for id, j := range b.jobs {
		s.Leases = append(s.Leases, proto.Clone(j.lease).(*rwpb.Lease))
		if j.done {
			reported[id] = true
		}
	}
	sort.Slice(s.Leases, func(i, j int) bool { return s.Leases[i].Id < s.Leases[j].Id })
	return &rwpb.UpdateBotSessionRequest{Name: s.Name, BotSession: s}, reported
}

func (b *bot) hasFinishedLocked() bool {
	for _, j := range b.jobs {
		if j.done {
			return true
		}
	}
	return false
}

// handleLeases reconciles the jobs with the leases the server returned:
// starts new ones, forgets reported ones and kills cancelled ones. It
// reports whether any job was started.
func (b *bot) handleLeases(ctx context.Context, s *rwpb.BotSession, reported map[string]bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	leases := s.Leases
	b.session = proto.Clone(s).(*rwpb.BotSession)
	b.session.Leases = nil

	started := false
	seen := map[string]bool{}
	for _, l := range leases {
		seen[l.Id] = true
		j, known := b.jobs[l.Id]
		switch {
		case known && l.State == rwpb.LeaseState_CANCELLED:
			b.logf("lease %s cancelled by the server", l.Id)
			j.cancel()
			delete(b.jobs, l.Id)
		case known && reported[l.Id]:
			delete(b.jobs, l.Id) // completion acknowledged
		case known:
			// Still running: the update was a keepalive.
		case l.State == rwpb.LeaseState_PENDING || l.State == rwpb.LeaseState_ACTIVE:
			b.startLocked(ctx, l)
			started = true
		}
	}
	for id, j := range b.jobs {
		if seen[id] {
			continue
		}
		if !reported[id] && !j.done {
			b.logf("lease %s dropped by the server: cancelling it", id)
		}
		j.cancel()
		delete(b.jobs, id)
	}
	return started
}

func (b *bot) startLocked(ctx context.Context, l *rwpb.Lease) {
	jctx, cancel := context.WithCancel(ctx)
	lease := proto.Clone(l).(*rwpb.Lease)
	lease.State = rwpb.LeaseState_ACTIVE
	j := &job{lease: lease, cancel: cancel}
	b.jobs[l.Id] = j
	b.jobsFinished.Add(1)
	payload := l.Payload
	go func() {
		defer b.jobsFinished.Done()
		result, st := b.runner.run(jctx, l.Id, payload)
		cancelled := jctx.Err() != nil
		cancel()
		if cancelled {
			return // dropped by the server or shutting down: nothing to report
		}
		b.finish(j, result, st)
	}()
}

// finish records a job's outcome for the next update and wakes the loop.
func (b *bot) finish(j *job, result *repb.ActionResult, st *spb.Status) {
	b.mu.Lock()
	j.done = true
	j.lease.State = rwpb.LeaseState_COMPLETED
	j.lease.Status = st
	if result != nil {
		if a, err := anypb.New(result); err == nil {
			j.lease.Result = a
		}
	}
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// dropAll kills every running job and forgets all leases.
func (b *bot) dropAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, j := range b.jobs {
		j.cancel()
		delete(b.jobs, id)
	}
}
