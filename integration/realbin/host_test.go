package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeELF is an ELF header of a shared library for the machine, and nothing
// else: enough for checkELF.
func fakeELF(m elf.Machine) string {
	h := elf.Header64{Type: uint16(elf.ET_DYN), Machine: uint16(m), Version: uint32(elf.EV_CURRENT), Ehsize: 64, Shentsize: 64}
	copy(h.Ident[:], []byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)})
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, h)
	return b.String()
}

// TestHostFiles: a host file is the artifact's file as it is, under its
// name in host/<platform>/, with its links; a second run writes the same;
// a file of another machine, a missing file and a link are refused.
func TestHostFiles(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz is not installed")
	}
	dir := t.TempDir()
	x86, arm := fakeELF(elf.EM_X86_64), fakeELF(elf.EM_AARCH64)
	deb := makeDeb(t, map[string]string{
		"./usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.9.1":  x86,
		"./usr/lib/x86_64-linux-gnu/nvidia/current/libother.so.9.1": arm,
		"./usr/share/doc/libcuda1/copyright":                        "c\n",
	})
	lockJSON := fmt.Sprintf(`{
  "drop": [],
  "artifacts": [
    {"id": "libcuda1==9.1-1:amd64", "kind": "deb", "name": "libcuda1", "version": "9.1-1", "arch": "amd64",
     "file": "libcuda1_9.1-1_amd64.deb", "sha256": %q}
  ],
  "archives": [],
  "host": [
    {"set": "driver", "platform": "linux-x86_64", "artifact": "libcuda1==9.1-1:amd64",
     "from": "usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.9.1", "name": "libcuda.so.1", "links": ["libcuda.so"], "why": "test"}
  ]
}`, sum(deb))
	lock := filepath.Join(dir, "lock.json")
	write(t, lock, lockJSON)
	cache := filepath.Join(dir, "cache")
	write(t, filepath.Join(cache, "downloads", "libcuda1_9.1-1_amd64.deb"), string(deb))
	out := filepath.Join(dir, "out")
	for i := 0; i < 2; i++ {
		var log bytes.Buffer
		s, err := Run(Options{Lock: lock, Shared: filepath.Join(dir, "shared"), Out: out, Cache: cache, Sets: []string{"driver"}}, &log)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, log.String())
		}
		if want := []string{"host/linux-x86_64/libcuda.so.1"}; strings.Join(s.Host, " ") != strings.Join(want, " ") || len(s.Archives) != 0 {
			t.Fatalf("run %d: host %v, archives %v", i, s.Host, s.Archives)
		}
		if !strings.Contains(log.String(), "host/linux-x86_64/libcuda.so.1 (from libcuda1==9.1-1:amd64:usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.9.1, linked as libcuda.so") {
			t.Errorf("run %d: log:\n%s", i, log.String())
		}
		if got := string(read(t, filepath.Join(out, "host/linux-x86_64/libcuda.so.1"))); got != x86 {
			t.Errorf("run %d: libcuda.so.1 is not the artifact's file", i)
		}
		if l, err := os.Readlink(filepath.Join(out, "host/linux-x86_64/libcuda.so")); err != nil || l != "libcuda.so.1" {
			t.Errorf("run %d: libcuda.so -> %q (%v)", i, l, err)
		}
		ents, _ := os.ReadDir(filepath.Join(out, "host/linux-x86_64"))
		if len(ents) != 2 {
			t.Errorf("run %d: host/linux-x86_64 has %d entries, want the file and its link", i, len(ents))
		}
	}
	for _, c := range []struct{ from, platform, want string }{
		{"usr/lib/x86_64-linux-gnu/nvidia/current/libother.so.9.1", "linux-x86_64", "needs"},
		{"usr/lib/x86_64-linux-gnu/nvidia/current/libnone.so", "linux-x86_64", "no such file"},
	} {
		bad := strings.Replace(lockJSON, "nvidia/current/libcuda.so.9.1", strings.TrimPrefix(c.from, "usr/lib/x86_64-linux-gnu/"), 1)
		write(t, lock, bad)
		_, err := Run(Options{Lock: lock, Out: filepath.Join(dir, "out9"), Cache: cache, Sets: []string{"driver"}}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("from %s: err %v, want %q", c.from, err, c.want)
		}
	}
}

// TestLockHostChecked: the lock refuses a host file with an unknown
// artifact, another arch than its platform's, a name with a folder, a
// repeated name, or no why.
func TestLockHostChecked(t *testing.T) {
	base := func() *Lock {
		return &Lock{
			Artifacts: []Artifact{{ID: "libcuda1==1-1:amd64", Kind: "deb", Name: "libcuda1", Version: "1-1", Arch: "amd64", File: "l.deb", SHA256: strings.Repeat("0", 64)}},
			Host:      []HostFile{{Set: "driver", Platform: "linux-x86_64", Artifact: "libcuda1==1-1:amd64", From: "usr/lib/libcuda.so.1.1", Name: "libcuda.so.1", Links: []string{"libcuda.so"}, Why: "w"}},
		}
	}
	if err := base().Check(); err != nil {
		t.Fatalf("good lock: %v", err)
	}
	for _, c := range []struct {
		change func(*HostFile)
		want   string
	}{
		{func(h *HostFile) { h.Artifact = "x==1:amd64" }, "unknown artifact"},
		{func(h *HostFile) { h.Platform = "linux-sbsa" }, "the platform needs arm64"},
		{func(h *HostFile) { h.Name = "lib/libcuda.so.1" }, "expected a file name"},
		{func(h *HostFile) { h.Links = []string{"libcuda.so.1"} }, "repeated name"},
		{func(h *HostFile) { h.From = "../x" }, "clean relative path"},
		{func(h *HostFile) { h.Why = "" }, "why is empty"},
	} {
		l := base()
		c.change(&l.Host[0])
		if err := l.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
	if got := base().Sets(); strings.Join(got, ",") != "driver" {
		t.Errorf("Sets() = %v", got)
	}
}
