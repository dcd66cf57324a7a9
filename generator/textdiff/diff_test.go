package textdiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n"
	b := strings.Replace(strings.Replace(a, "two\n", "TWO\n", 1), "eleven\n", "eleven\nand a half\n", 1)
	want := `--- a/f
+++ b/f
@@ -1,5 +1,5 @@
 one
-two
+TWO
 three
 four
 five
@@ -9,4 +9,5 @@
 nine
 ten
 eleven
+and a half
 twelve
`
	if diff := cmp.Diff(want, Unified("a/f", "b/f", []byte(a), []byte(b))); diff != "" {
		t.Errorf("Unified (-want +got):\n%s", diff)
	}
	if d := Unified("a", "b", []byte(a), []byte(a)); d != "" {
		t.Errorf("equal inputs gave %q", d)
	}
	created := Unified("/dev/null", "b/f", nil, []byte("x\ny\n"))
	if !strings.Contains(created, "@@ -0,0 +1,2 @@\n+x\n+y\n") {
		t.Errorf("creation diff:\n%s", created)
	}
	noEOL := Unified("a", "b", []byte("x\n"), []byte("x\ny"))
	if !strings.Contains(noEOL, "+y\n\\ No newline at end of file\n") {
		t.Errorf("missing final newline not shown:\n%s", noEOL)
	}
}

// A hand edit of thousands of lines gets a bounded diff: the lines both
// sides share at their start and end are not compared, and past that a
// summary stands in for the table the diff would need.
func TestUnifiedDiffIsBounded(t *testing.T) {
	long := strings.Repeat("same\n", 100000)
	d := Unified("a", "b", []byte(long+"old\n"+long), []byte(long+"new\n"+long))
	if !strings.Contains(d, "-old\n+new\n") || strings.Count(d, "\n") > 20 {
		t.Errorf("one changed line in a long file:\n%.500s", d)
	}
	var x, y strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&x, "a%d\n", i)
		fmt.Fprintf(&y, "b%d\n", i)
	}
	d = Unified("a", "b", []byte(x.String()), []byte(y.String()))
	if !strings.Contains(d, "@@ -1,5000 +1,5000 @@ too many changed lines to show here") {
		t.Errorf("5000 changed lines:\n%.500s", d)
	}
}
