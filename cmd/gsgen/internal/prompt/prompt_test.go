package prompt

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Each prompt makes its own scanner on Lines: every scanner must get exactly
// one line, however long, and only a scanner past the last line sees the end.
func TestLinesOneLinePerScanner(t *testing.T) {
	long := strings.Repeat("x", MaxLine-1) // with its "\r\n", longer than a scanner's first buffer
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

// A line Lines cannot hand on whole ends the input there, with the reason:
// huh would otherwise meet the end of its scanner and take every default.
func TestLinesStopsAtALineItCannotHandOn(t *testing.T) {
	for _, c := range []struct {
		name string
		in   io.Reader
		want string
	}{
		{"too long", strings.NewReader("ok\n" + strings.Repeat("x", MaxLine+1) + "\nnever read\n"), "line 2 is longer than 4096 bytes"},
		{"64 KiB", strings.NewReader(strings.Repeat("x", 64<<10+1)), "line 1 is longer than 4096 bytes"},
		{"not UTF-8", strings.NewReader("ok\nbad \xff\xfe\n"), "line 2 is not valid UTF-8"},
		{"read error", io.MultiReader(strings.NewReader("ok\n"), iotest.ErrReader(errors.New("input/output error"))), "reading line 2 failed: input/output error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := NewLines(c.in)
			if s := bufio.NewScanner(l); !s.Scan() && c.name != "64 KiB" {
				t.Fatalf("first line: %v", s.Err())
			}
			for range 2 {
				bufio.NewScanner(l).Scan()
			}
			if !l.Ended() || l.Err() == nil || l.Err().Error() != c.want {
				t.Errorf("Ended %v, Err %v, want %q", l.Ended(), l.Err(), c.want)
			}
		})
	}
}

// FuzzAccessibleChoice: whatever lines an accessible select or multi-select
// reads (a number out of range, 0, words, NULs, nothing), it answers with
// one of its options or fails with an *problem.InputError: it never
// panics, as huh's own select does when the input ends after a bad choice.
func FuzzAccessibleChoice(f *testing.F) {
	for _, seed := range []string{"9\n", "0\n", "words\n", "\x00\n", "", "2\n", "-1\n", "1\n9\n", "99999999999999999999\n"} {
		f.Add(seed)
	}
	q := Choice{Title: "Pick", Options: []Option{{"a", "first"}, {"b", "second"}, {"c", "third"}}}
	f.Fuzz(func(t *testing.T, input string) {
		one := NewAccessible(strings.NewReader(input), io.Discard)
		got, err := one.ChooseOne(q, "a")
		one.Close()
		checkChoice(t, err, got)
		many := NewAccessible(strings.NewReader(input), io.Discard)
		picked, err := many.ChooseMany(q, nil)
		many.Close()
		checkChoice(t, err, picked...)
	})
}

func checkChoice(t *testing.T, err error, got ...string) {
	t.Helper()
	if err != nil {
		var input *problem.InputError
		if !errors.As(err, &input) {
			t.Fatalf("err = %v (%T), want an *problem.InputError", err, err)
		}
		return
	}
	for _, g := range got {
		if g != "a" && g != "b" && g != "c" {
			t.Fatalf("answered %q, which is no option", g)
		}
	}
}
