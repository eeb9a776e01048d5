package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestWorkerProto(t *testing.T) {
	w := workerProto("bot1", []property{{"gpu", "nvidia"}, {"OSFamily", "linux"}}, 2)
	if len(w.Devices) != 1 || w.Devices[0].Handle != "bot1" {
		t.Fatalf("devices %v", w.Devices)
	}
	dp := w.Devices[0].Properties
	if len(dp) != 2 || dp[0].Key != "OSFamily" || dp[0].Value != "linux" || dp[1].Key != "gpu" {
		t.Errorf("device properties %v", dp)
	}
	if len(w.Properties) != 2 {
		t.Errorf("worker properties %v", w.Properties)
	}
	if len(w.Configs) != 1 || w.Configs[0].Key != "capacity" || w.Configs[0].Value != "2" {
		t.Errorf("configs %v", w.Configs)
	}
}

// TestBotLoop drives the whole bot against the fake Bots service: a lease
// with Any(Digest) payload, one with Any(Action) payload, and one the server
// cancels by dropping it from the session.
func TestBotLoop(t *testing.T) {
	e := newTestEnv(t)
	r := e.runner(t, property{"OSFamily", "linux"})
	env := []*repb.Command_EnvironmentVariable{{Name: "PATH", Value: "/usr/bin:/bin"}}
	root := e.cas.putProto(t, &repb.Directory{})

	// Lease 1: payload is the Action's digest.
	e.bots.enqueue(&rwpb.Lease{Id: "lease-1", State: rwpb.LeaseState_ACTIVE,
		Payload: action(t, e, &repb.Command{Arguments: []string{"sh", "-c", "exit 5"}, EnvironmentVariables: env}, root, 0, nil)})
	// Lease 2: payload is the Action itself, as BuildGrid 0.4 sends it.
	a := &repb.Action{CommandDigest: e.cas.putProto(t, &repb.Command{Arguments: []string{"true"}, EnvironmentVariables: env}), InputRootDigest: root}
	payload, err := anypb.New(a)
	if err != nil {
		t.Fatal(err)
	}
	e.bots.enqueue(&rwpb.Lease{Id: "lease-2", State: rwpb.LeaseState_PENDING, Payload: payload})
	// Lease 3 would run for 30 s unless killed.
	marker := filepath.Join(t.TempDir(), "marker")
	e.bots.enqueue(&rwpb.Lease{Id: "lease-3", State: rwpb.LeaseState_ACTIVE,
		Payload: action(t, e, &repb.Command{Arguments: []string{"sh", "-c", "sleep 2; touch " + marker + "; sleep 30"}, EnvironmentVariables: env}, root, 0, nil)})

	b := newBot("bot1", "inst", []property{{"OSFamily", "linux"}}, 1, rwpb.NewBotsClient(e.conn), r, t.Logf)
	b.pollTimeout, b.keepalive = 2*time.Second, 100*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for _, want := range []struct {
		id   string
		exit int32
	}{{"lease-1", 5}, {"lease-2", 0}} {
		select {
		case l := <-e.bots.completed:
			if l.Id != want.id || l.Status.GetCode() != int32(codes.OK) {
				t.Fatalf("completed %s status %v, want %s OK", l.Id, l.Status, want.id)
			}
			res := &repb.ActionResult{}
			if err := l.Result.UnmarshalTo(res); err != nil {
				t.Fatalf("lease result is not an ActionResult: %v", err)
			}
			if res.ExitCode != want.exit {
				t.Errorf("%s exit %d, want %d", l.Id, res.ExitCode, want.exit)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no completion for %s", want.id)
		}
	}

	// Wait for lease 3 to be reported ACTIVE, then cancel it server-side.
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.bots.mu.Lock()
		active := e.bots.active["lease-3"]
		if active {
			e.bots.drop["lease-3"] = true
		}
		e.bots.mu.Unlock()
		if active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("lease-3 never reported ACTIVE")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("cancelled lease kept running")
	}
	select {
	case l := <-e.bots.completed:
		t.Errorf("cancelled lease reported: %v", l)
	default:
	}

	e.bots.mu.Lock()
	defer e.bots.mu.Unlock()
	if len(e.bots.created) != 1 {
		t.Fatalf("%d sessions created", len(e.bots.created))
	}
	s := e.bots.created[0]
	if s.BotId != "bot1" || s.Status != rwpb.BotStatus_OK || s.Worker.Devices[0].Properties[0].Key != "OSFamily" {
		t.Errorf("session %v", s)
	}
}

func TestKeepaliveInterval(t *testing.T) {
	b := &bot{keepalive: 20 * time.Second}
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		expire *timestamppb.Timestamp
		want   time.Duration
	}{
		{"no expire time", nil, 20 * time.Second},
		{"far expiry keeps the flag's interval", timestamppb.New(now.Add(10 * time.Minute)), 20 * time.Second},
		{"BuildGrid keepalive timeout of 10s", timestamppb.New(now.Add(10 * time.Second)), 10 * time.Second / 3},
		{"already expired", timestamppb.New(now.Add(-time.Second)), 100 * time.Millisecond},
		{"nearly expired: floor", timestamppb.New(now.Add(30 * time.Millisecond)), 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := b.keepaliveInterval(&rwpb.BotSession{ExpireTime: tc.expire}, now)
			if got != tc.want {
				t.Errorf("interval %v, want %v", got, tc.want)
			}
		})
	}
}
