package prompt

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
)

// Each prompt makes its own scanner on Lines: every scanner must get exactly
// one line, however long, and only a scanner past the last line sees the end.
func TestLinesOneLinePerScanner(t *testing.T) {
	long := strings.Repeat("x", 10000) // longer than a scanner's first buffer
	l := NewLines(strings.NewReader("first\n" + long + "\r\nlast"))
	for _, want := range []string{"first", long, "last"} {
		s := bufio.NewScanner(l)
		s.Buffer(nil, 1<<20)
		if !s.Scan() || s.Text() != want {
			t.Fatalf("scanned %.20q, want %.20q (err %v)", s.Text(), want, s.Err())
		}
		if l.Ended() {
			t.Fatalf("Ended after %.20q, before any prompt read past the input", want)
		}
	}
	if s := bufio.NewScanner(l); s.Scan() || !l.Ended() {
		t.Errorf("a scan past the input: got %q, Ended %v", s.Text(), l.Ended())
	}
	if n, err := l.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read after the end = %d, %v", n, err)
	}
}

func TestEveryComponentHasADescription(t *testing.T) {
	for _, c := range generator.AllComponents {
		if componentDescriptions[c] == "" {
			t.Errorf("component %s has no one-line description", c)
		}
	}
}
