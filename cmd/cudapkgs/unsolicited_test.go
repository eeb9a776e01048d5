package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// unsolicitedServer answers every request with body, then writes a second
// response nobody asked for on the idle connection (which makes net/http's
// transport log "Unsolicited response received on idle HTTP channel").
func unsolicitedServer(t *testing.T, body []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if strings.TrimRight(line, "\r\n") == "" {
						break
					}
				}
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(body))
				c.Write(body)
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				time.Sleep(500 * time.Millisecond)
			}(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestNoStrayLogLines: what net/http logs about a misbehaving server never
// reaches cudapkgs' stderr as a raw, time-stamped line.
func TestNoStrayLogLines(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_12.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	url := unsolicitedServer(t, body)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "unsolicited"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("SERVER", url)
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "cache"))
			return nil
		},
	})
}
