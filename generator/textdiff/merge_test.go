package textdiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var testLabels = Labels{Ours: "yours", Base: "gsgen v1", Theirs: "gsgen v2"}

// lines joins its arguments as lines, each ended by a newline.
func lines(l ...string) string {
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\n") + "\n"
}

func TestMerge3(t *testing.T) {
	cases := []struct {
		name               string
		base, ours, theirs string
		want               string
		conflicts          int
	}{
		{"nobody changed it", lines("a", "b"), lines("a", "b"), lines("a", "b"), lines("a", "b"), 0},
		{"only ours changed", lines("a", "b", "c"), lines("a", "B", "c"), lines("a", "b", "c"), lines("a", "B", "c"), 0},
		{"only theirs changed", lines("a", "b", "c"), lines("a", "b", "c"), lines("a", "b", "C"), lines("a", "b", "C"), 0},
		{"both made the same change", lines("a", "b", "c"), lines("a", "X", "c"), lines("a", "X", "c"), lines("a", "X", "c"), 0},
		{"disjoint hunks", lines("1", "2", "3", "4", "5", "6", "7"), lines("1", "two", "3", "4", "5", "6", "7"), lines("1", "2", "3", "4", "5", "six", "7"),
			lines("1", "two", "3", "4", "5", "six", "7"), 0},
		{"overlapping change", lines("a", "b", "c"), lines("a", "ours", "c"), lines("a", "theirs", "c"),
			lines("a", "<<<<<<< yours", "ours", "||||||| gsgen v1", "b", "=======", "theirs", ">>>>>>> gsgen v2", "c"), 1},
		{"both insert at the same point, differently", lines("a", "c"), lines("a", "b1", "c"), lines("a", "b2", "c"),
			lines("a", "<<<<<<< yours", "b1", "||||||| gsgen v1", "=======", "b2", ">>>>>>> gsgen v2", "c"), 1},
		{"both insert the same at the same point", lines("a", "c"), lines("a", "b", "c"), lines("a", "b", "c"), lines("a", "b", "c"), 0},
		{"ours deletes, theirs edits elsewhere", lines("a", "b", "c", "d", "e"), lines("a", "c", "d", "e"), lines("a", "b", "c", "d", "E"), lines("a", "c", "d", "E"), 0},
		{"ours deletes what theirs edits", lines("a", "b", "c"), lines("a", "c"), lines("a", "B", "c"),
			lines("a", "<<<<<<< yours", "||||||| gsgen v1", "b", "=======", "B", ">>>>>>> gsgen v2", "c"), 1},
		{"both delete the same line", lines("a", "b", "c"), lines("a", "c"), lines("a", "c"), lines("a", "c"), 0},
		{"theirs deletes the whole file, ours unchanged", lines("a", "b"), lines("a", "b"), "", "", 0},
		{"empty base, both add differently", "", lines("x"), lines("y"),
			lines("<<<<<<< yours", "x", "||||||| gsgen v1", "=======", "y", ">>>>>>> gsgen v2"), 1},
		{"empty base, ours empty", "", "", lines("new"), lines("new"), 0},
		{"all empty", "", "", "", "", 0},
		{"adjacent changes with no kept line between conflict", lines("a", "b", "c", "d"), lines("a", "B", "c", "d"), lines("a", "b", "C", "d"),
			lines("a", "<<<<<<< yours", "B", "c", "||||||| gsgen v1", "b", "c", "=======", "b", "C", ">>>>>>> gsgen v2", "d"), 1},
		{"ours appends, theirs edits the top", lines("a", "b", "c"), lines("a", "b", "c", "d"), lines("A", "b", "c"), lines("A", "b", "c", "d"), 0},
		{"no trailing newline: ours adds one line, theirs edits the top", "a\nb\nc", "a\nb\nc\nd", "A\nb\nc", "A\nb\nc\nd", 0},
		{"no trailing newline: theirs adds the newline", "a\nb\nc\nd", "a\nB\nc\nd", "a\nb\nc\nd\n", "a\nB\nc\nd\n", 0},
		{"no trailing newline: both change the last line", "a\nb", "a\nours", "a\ntheirs",
			"a\n<<<<<<< yours\nours\n||||||| gsgen v1\nb\n=======\ntheirs\n>>>>>>> gsgen v2\n", 1},
		{"a template change and a user edit in one function", lines("func f() {", "\tstep1()", "\tstep2()", "", "\tstep3()", "}"),
			lines("func f() {", "\tstep1()", "\tstep2()", "\tmine()", "", "\tstep3()", "}"),
			lines("func f() {", "\tstep1(ctx)", "\tstep2()", "", "\tstep3()", "}"),
			lines("func f() {", "\tstep1(ctx)", "\tstep2()", "\tmine()", "", "\tstep3()", "}"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs), testLabels)
			if string(r.Merged) != c.want {
				t.Errorf("merged:\n%s\nwant:\n%s", r.Merged, c.want)
			}
			if len(r.Conflicts) != c.conflicts {
				t.Errorf("%d conflicts, want %d: %+v", len(r.Conflicts), c.conflicts, r.Conflicts)
			}
			// Swapping the sides gives the same merge where there is no conflict.
			if c.conflicts == 0 {
				if s := Merge3([]byte(c.base), []byte(c.theirs), []byte(c.ours), testLabels); string(s.Merged) != c.want {
					t.Errorf("sides swapped, merged:\n%s", s.Merged)
				}
			}
		})
	}
}

func TestMerge3ConflictLines(t *testing.T) {
	base := lines("1", "2", "3", "4", "5", "6", "7", "8")
	ours := lines("1", "two", "3", "4", "5", "6", "seven", "eight")
	theirs := lines("1", "TWO", "3", "4", "5", "6", "7", "EIGHT")
	r := Merge3([]byte(base), []byte(ours), []byte(theirs), testLabels)
	if len(r.Conflicts) != 2 {
		t.Fatalf("%d conflicts, want 2:\n%s", len(r.Conflicts), r.Merged)
	}
	if got := r.Conflicts[0].Where() + ", " + r.Conflicts[1].Where(); got != "line 2, lines 7-8" {
		t.Errorf("conflicts at %s", got)
	}
}

// Without a base every difference is a conflict: gsgen cannot tell whose
// change it was. Lines both agree on stay as they are.
func TestMerge3WithoutBase(t *testing.T) {
	ours := lines("a", "mine", "c", "d")
	theirs := lines("a", "c", "d", "new")
	r := Merge3(nil, []byte(ours), []byte(theirs), testLabels)
	want := lines("a", "<<<<<<< yours", "mine", "||||||| (no record of what gsgen wrote here)", "=======", ">>>>>>> gsgen v2",
		"c", "d", "<<<<<<< yours", "||||||| (no record of what gsgen wrote here)", "=======", "new", ">>>>>>> gsgen v2")
	if string(r.Merged) != want || len(r.Conflicts) != 2 || !r.Conflicts[0].NoBase {
		t.Errorf("merged (%d conflicts):\n%s\nwant:\n%s", len(r.Conflicts), r.Merged, want)
	}
	if r := Merge3(nil, []byte(ours), []byte(ours), testLabels); len(r.Conflicts) != 0 || string(r.Merged) != ours {
		t.Errorf("same on both sides: %d conflicts\n%s", len(r.Conflicts), r.Merged)
	}
}

// A file too large for the line diff is one conflict, never a guess.
func TestMerge3TooLarge(t *testing.T) {
	var b, o, th strings.Builder
	for i := range 3000 {
		b.WriteString("base line\n")
		o.WriteString("ours " + strings.Repeat("x", i%7) + "\n")
		th.WriteString("theirs " + strings.Repeat("y", i%5) + "\n")
	}
	r := Merge3([]byte(b.String()), []byte(o.String()), []byte(th.String()), testLabels)
	if len(r.Conflicts) != 1 || !strings.HasPrefix(string(r.Merged), "<<<<<<< yours\n") {
		t.Errorf("%d conflicts", len(r.Conflicts))
	}
}

// Merge3's laws, on many small random files of few distinct lines (so the
// diffs have choices to make): a side that did not change takes the other;
// two sides that agree take it; a clean merge does not depend on which side
// is ours; and every line of a clean merge comes from one of the sides.
func TestMerge3Laws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	file := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(string(rune('a'+r.IntN(3))) + "\n")
		}
		if r.IntN(4) == 0 {
			b.WriteString("z") // no newline at the end
		}
		return b.String()
	}
	for i := range 5000 {
		base, ours, theirs := file(), file(), file()
		check := func(law string, got Result, want string) {
			if len(got.Conflicts) != 0 || string(got.Merged) != want {
				t.Fatalf("case %d, %s: base %q ours %q theirs %q: merged %q (%d conflicts), want %q", i, law, base, ours, theirs, got.Merged, len(got.Conflicts), want)
			}
		}
		check("ours unchanged", Merge3([]byte(base), []byte(base), []byte(theirs), testLabels), theirs)
		check("theirs unchanged", Merge3([]byte(base), []byte(ours), []byte(base), testLabels), ours)
		check("both the same", Merge3([]byte(base), []byte(ours), []byte(ours), testLabels), ours)
		check("no base, both the same", Merge3(nil, []byte(ours), []byte(ours), testLabels), ours)
		m := Merge3([]byte(base), []byte(ours), []byte(theirs), testLabels)
		if len(m.Conflicts) > 0 {
			if !strings.Contains(string(m.Merged), "<<<<<<< yours\n") {
				t.Fatalf("case %d: conflicts without markers: %q", i, m.Merged)
			}
			continue
		}
		check("sides swapped", Merge3([]byte(base), []byte(theirs), []byte(ours), testLabels), string(m.Merged))
		for _, l := range rawLines(m.Merged) {
			if !strings.Contains(ours+"\n", l) && !strings.Contains(theirs+"\n", l) {
				t.Fatalf("case %d: merged line %q is in neither side", i, l)
			}
		}
	}
}
