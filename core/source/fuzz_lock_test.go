package source

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

var lockKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*/redistrib_[0-9]+(\.[0-9]+)*\.json$`)

// exactKeys reports whether a JSON object's keys are exactly among want,
// compared as written (encoding/json matches field names ignoring case).
func exactKeys(t *testing.T, raw json.RawMessage, want ...string) bool {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("accepted lock does not decode as objects: %v", err)
	}
	for k := range obj {
		if !slices.Contains(want, k) {
			return false
		}
	}
	return true
}

// FuzzParseLock checks that what ParseLock accepts is a well-formed lock
// (keys <product>/redistrib_<version>.json, 64 lower-case hex digits, a
// positive size), written with exactly the documented field names, and
// that Marshal and ParseLock round-trip it to the same value and bytes.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte("{\n  \"version\": 1,\n  \"manifests\": {}\n}\n"))
	f.Add(NewLock("x").Marshal())
	l := NewLock("x")
	l.Manifests["cuda/redistrib_12.4.1.json"] = LockEntry{SHA256: strings.Repeat("ab", 32), Size: 58445}
	l.Manifests["cudnn/redistrib_9.5.1.json"] = LockEntry{SHA256: strings.Repeat("0f", 32), Size: 9}
	f.Add(l.Marshal())
	f.Add([]byte(`{"version": 1, "manifests": {"cuda/redistrib_12.4.1.json": {"sha256": "` + strings.Repeat("ab", 32) + `", "SHA256": "` + strings.Repeat("cd", 32) + `", "size": 1}}}`))
	// Whole numbers written as decimals or with exponents are accepted;
	// fractions are not (issue 24: "version": 1.0 was refused).
	f.Add([]byte(`{"version": 1.0, "manifests": {"cuda/redistrib_12.4.1.json": {"sha256": "` + strings.Repeat("ab", 32) + `", "size": 5.8445e4}}}`))
	f.Add([]byte(`{"version": 1e0, "manifests": {}}`))
	f.Add([]byte(`{"version": 1.5, "manifests": {}}`))
	// The snapshot's lock, cut to a few entries (a big seed slows every
	// execution), and ../shared's.
	if data, err := os.ReadFile(filepath.Join("..", "..", "snapshot", "manifests.lock")); err == nil {
		if sl, err := ParseLock("snapshot", data); err == nil {
			small := NewLock("x")
			for _, k := range slices.Sorted(maps.Keys(sl.Manifests))[:5] {
				small.Manifests[k] = sl.Manifests[k]
			}
			f.Add(small.Marshal())
		}
	}
	if dir := shared.Find(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 8<<10 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock("cudapkgs.lock", data)
		if err != nil {
			if _, ok := err.(*LockError); !ok {
				t.Fatalf("error of type %T, expected *LockError: %v", err, err)
			}
			return
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("accepted lock is not a JSON object: %v", err)
		}
		if !exactKeys(t, data, "version", "manifests") {
			t.Fatalf("accepted a lock with a field other than \"version\" and \"manifests\": %s", data)
		}
		var ms map[string]json.RawMessage
		if err := json.Unmarshal(top["manifests"], &ms); err != nil {
			t.Fatal(err)
		}
		for k, e := range ms {
			if !exactKeys(t, e, "sha256", "size") {
				t.Fatalf("accepted an entry %q with a field other than \"sha256\" and \"size\": %s", k, e)
			}
		}
		for k, e := range l.Manifests {
			if !lockKeyRE.MatchString(k) {
				t.Fatalf("accepted key %q", k)
			}
			if len(e.SHA256) != 64 || strings.Trim(e.SHA256, "0123456789abcdef") != "" || e.Size <= 0 {
				t.Fatalf("accepted entry %q: %+v", k, e)
			}
		}
		out := l.Marshal()
		l2, err := ParseLock("cudapkgs.lock", out)
		if err != nil {
			t.Fatalf("re-parsing the marshalled lock: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(l.Manifests, l2.Manifests) {
			t.Fatalf("round trip changed the lock: %v, then %v", l.Manifests, l2.Manifests)
		}
		if out2 := l2.Marshal(); !bytes.Equal(out, out2) {
			t.Fatalf("marshalling is not stable:\n%s\n%s", out, out2)
		}
	})
}
