package allocs

import "testing"

var sink []byte

func TestDuring(t *testing.T) {
	n := During(func() { sink = make([]byte, 8<<20) })
	if n < 8<<20 || n > 9<<20 {
		t.Errorf("an 8 MiB allocation measured as %d bytes", n)
	}
	if n := During(func() {}); n > 64<<10 {
		t.Errorf("nothing measured as %d bytes", n)
	}
}
