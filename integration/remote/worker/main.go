// Command worker is a small Remote Workers API bot, in the manner of
// buildbox-worker: it takes leases from a BuildGrid server's Bots service,
// runs each REAPI action (optionally chrooted into an action root), and
// reports the ActionResult. Inputs are hardlinked from a local
// content-addressed cache so that large shared inputs are fetched once.
//
// Usage:
//
//	worker -server 127.0.0.1:50051 -name bot1 -root /srv/actionroot \
//	  -cache /srv/cache -property OSFamily=linux -property gpu=nvidia
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type config struct {
	server, instance, name string
	root, cache, logFile   string
	props                  []property
	ignoreProps            map[string]bool
	concurrency            int
	defaultTimeout         time.Duration
	keep                   bool
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	c := &config{ignoreProps: map[string]bool{}}
	host, _ := os.Hostname()
	var props, ignore listFlag
	fs.StringVar(&c.server, "server", "127.0.0.1:50051", "BuildGrid address, host:port (a grpc:// prefix is accepted)")
	fs.StringVar(&c.instance, "instance", "", "REAPI instance name, used as Bots parent and for CAS calls")
	fs.StringVar(&c.name, "name", host, "bot name (bot_id)")
	fs.StringVar(&c.root, "root", "", "action root: each action runs chrooted into it, in /build/<unique>; empty: no chroot")
	fs.StringVar(&c.cache, "cache", "", "local file cache directory; must be on the same filesystem as -root (required)")
	fs.StringVar(&c.logFile, "log", "", "append one line per lease to this file")
	fs.Var(&props, "property", "platform property key=value the bot offers (repeatable)")
	fs.Var(&ignore, "ignore-property", "platform property name not checked against the bot's properties (repeatable)")
	fs.IntVar(&c.concurrency, "concurrency", 1, "number of actions run at once")
	fs.DurationVar(&c.defaultTimeout, "default-timeout", 0, "timeout for actions that set none (0: none)")
	fs.BoolVar(&c.keep, "keep", false, "keep exec dirs after each action")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	c.server = strings.TrimPrefix(c.server, "grpc://")
	for _, p := range props {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-property %q: want key=value", p)
		}
		c.props = append(c.props, property{k, v})
	}
	for _, k := range ignore {
		c.ignoreProps[k] = true
	}
	switch {
	case c.name == "":
		return nil, errors.New("-name is required")
	case c.cache == "":
		return nil, errors.New("-cache is required")
	case c.concurrency < 1:
		return nil, errors.New("-concurrency must be at least 1")
	case c.root != "" && !filepath.IsAbs(c.root):
		return nil, errors.New("-root must be an absolute path")
	}
	return c, nil
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		log.Fatalf("worker: %v", err)
	}
	if err := serve(cfg); err != nil {
		log.Fatalf("worker: %v", err)
	}
}

func serve(cfg *config) error {
	logf := log.Printf
	if cfg.logFile != "" {
		f, err := os.OpenFile(cfg.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		fileLog := log.New(f, "", log.LstdFlags|log.Lmicroseconds)
		var mu sync.Mutex
		logf = func(format string, args ...any) {
			log.Printf(format, args...)
			mu.Lock()
			defer mu.Unlock()
			fileLog.Printf(format, args...)
		}
	}

	conn, err := grpc.NewClient(cfg.server,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		return fmt.Errorf("connect %s: %w", cfg.server, err)
	}
	defer conn.Close()

	r, err := newRunner(cfg, newCASClient(conn, cfg.instance), logf)
	if err != nil {
		return err
	}
	defer r.cache.close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := newBot(cfg.name, cfg.instance, cfg.props, cfg.concurrency, rwpb.NewBotsClient(conn), r, logf)
	logf("worker %s serving %s (instance %q, root %q, properties %v)", cfg.name, cfg.server, cfg.instance, cfg.root, cfg.props)
	b.run(ctx)
	return nil
}

// newRunner sets up the cache and the exec dir base and checks that inputs
// can be hardlinked from one to the other.
func newRunner(cfg *config, cas *casClient, logf func(string, ...any)) (_ *runner, err error) {
	cache, err := newFileCache(cfg.cache, cas)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cache.close()
		}
	}()
	execBase := filepath.Join(cache.dir, "exec")
	if cfg.root != "" {
		if os.Geteuid() != 0 {
			return nil, errors.New("-root needs root privileges (chroot)")
		}
		execBase = filepath.Join(cfg.root, "build")
	}
	if err := os.MkdirAll(execBase, 0o755); err != nil {
		return nil, err
	}
	if err := checkLinkable(cache.tmp, execBase); err != nil {
		return nil, err
	}
	props := properties{}
	for _, p := range cfg.props {
		props[p.name] = append(props[p.name], p.value)
	}
	return &runner{
		botName:        cfg.name,
		root:           cfg.root,
		execBase:       execBase,
		cas:            cas,
		cache:          cache,
		props:          props,
		ignoreProps:    cfg.ignoreProps,
		defaultTimeout: cfg.defaultTimeout,
		keep:           cfg.keep,
		logf:           logf,
	}, nil
}

// checkLinkable fails early when the cache and exec dirs are on different
// filesystems: every input would then be copied, which for the large shared
// archives is exactly what the cache is meant to avoid.
func checkLinkable(cacheTmp, execBase string) error {
	f, err := os.CreateTemp(cacheTmp, "linkcheck-*")
	if err != nil {
		return err
	}
	f.Close()
	defer os.Remove(f.Name())
	dst := filepath.Join(execBase, filepath.Base(f.Name()))
	if err := os.Link(f.Name(), dst); err != nil {
		return fmt.Errorf("cannot hardlink from -cache into %s (same filesystem needed): %w", execBase, err)
	}
	return os.Remove(dst)
}
