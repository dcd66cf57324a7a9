package textdiff

import (
	"fmt"
	"slices"
	"strings"
)

// Merge3 merges two versions of a file that both started from base, line
// by line, the way diff3 and git merge do (Khanna, Kunal and Pierce, "A
// Formal Investigation of Diff3"): ours (the file on disk, with the user's
// edits) and theirs (gsgen's new version). Each side is diffed against base
// (diffLines, the diff gsgen shows hand edits with); the lines of base both
// sides kept split the files into stable chunks, taken as they are, and
// unstable chunks between them: a chunk only one side changed takes that
// side's lines, a chunk both sides changed the same way takes them once, and
// any other is a conflict. Two changes touching each other with no kept line
// between them are one chunk, so they conflict rather than being guessed at.
//
// With base nil gsgen has no record of what it wrote (a service written
// before gsgen.base): every place where ours and theirs differ is a
// conflict, since nothing tells whose change it was.
//
// The result holds, for each conflict, diff3 markers (<<<<<<< ours,
// ||||||| base, ======= theirs >>>>>>>) with the labels given; Conflicts
// lists them. A file too large for the line diff is one conflict.
func Merge3(base, ours, theirs []byte, labels Labels) Result {
	o, a, b := rawLines(base), rawLines(ours), rawLines(theirs)
	var chunks []chunk
	ok := true
	if base == nil {
		chunks, ok = twoWayChunks(a, b)
	} else {
		chunks, ok = threeWayChunks(o, a, b)
	}
	if !ok {
		chunks = []chunk{{base: o, ours: a, theirs: b, noBase: base == nil}}
	}
	var res Result
	var out strings.Builder
	line := 1 // of ours, where the chunk starts
	for _, c := range chunks {
		switch {
		case c.stable:
			writeLines(&out, c.ours)
		case equalLines(c.ours, c.base) && !c.noBase:
			writeLines(&out, c.theirs)
		case equalLines(c.theirs, c.base) && !c.noBase, equalLines(c.ours, c.theirs):
			writeLines(&out, c.ours)
		default:
			h := Conflict{OursLine: line, Ours: c.ours, Base: c.base, Theirs: c.theirs, NoBase: c.noBase}
			res.Conflicts = append(res.Conflicts, h)
			out.WriteString(h.Markers(labels))
		}
		line += len(c.ours)
	}
	res.Merged = []byte(out.String())
	return res
}

// Labels name the three versions in conflict markers.
type Labels struct{ Ours, Base, Theirs string }

// Result is a merge: the merged bytes, with markers at each conflict.
type Result struct {
	Merged    []byte
	Conflicts []Conflict
}

// Conflict is a place both sides changed differently.
type Conflict struct {
	OursLine           int // first line of ours it covers (1-based; where it would go when ours has none)
	Ours, Base, Theirs []string
	NoBase             bool // gsgen had no record of what it wrote
}

// Markers is the hunk as diff3 writes it. A side whose last line has no
// newline gets one, so each marker starts a line.
func (h Conflict) Markers(l Labels) string {
	var b strings.Builder
	side := func(marker, label string, lines []string) {
		b.WriteString(strings.TrimSpace(marker+" "+label) + "\n")
		writeLines(&b, lines)
		if s := b.String(); !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	side("<<<<<<<", l.Ours, h.Ours)
	base := l.Base
	if h.NoBase {
		base = "(no record of what gsgen wrote here)"
	}
	side("|||||||", base, h.Base)
	side("=======", "", h.Theirs)
	b.WriteString(">>>>>>> " + l.Theirs + "\n")
	return b.String()
}

// Where says where the hunk is, for a list of conflicts.
func (h Conflict) Where() string {
	switch len(h.Ours) {
	case 0:
		return fmt.Sprintf("at line %d", h.OursLine)
	case 1:
		return fmt.Sprintf("line %d", h.OursLine)
	}
	return fmt.Sprintf("lines %d-%d", h.OursLine, h.OursLine+len(h.Ours)-1)
}

// chunk is a run of the three files: stable (all three agree) or not.
type chunk struct {
	stable             bool
	base, ours, theirs []string
	noBase             bool
}

// threeWayChunks splits o, a and b into stable and unstable chunks; false
// when a file is too large for the line diff.
func threeWayChunks(o, a, b []string) ([]chunk, bool) {
	ma, ok := matches(o, a)
	if !ok {
		return nil, false
	}
	mb, ok := matches(o, b)
	if !ok {
		return nil, false
	}
	var out []chunk
	lo, la, lb := 0, 0, 0
	for lo < len(o) || la < len(a) || lb < len(b) {
		n := 0 // the lines all three share from here
		for lo+n < len(o) && ma[lo+n] == la+n && mb[lo+n] == lb+n {
			n++
		}
		if n > 0 {
			out = append(out, chunk{stable: true, base: o[lo : lo+n], ours: a[la : la+n], theirs: b[lb : lb+n]})
			lo, la, lb = lo+n, la+n, lb+n
			continue
		}
		// The next line of base both sides kept ends the unstable chunk.
		eo, ea, eb := lo, len(a), len(b)
		for ; eo < len(o); eo++ {
			if ma[eo] >= 0 && mb[eo] >= 0 {
				ea, eb = ma[eo], mb[eo]
				break
			}
		}
		out = append(out, chunk{base: o[lo:eo], ours: a[la:ea], theirs: b[lb:eb]})
		lo, la, lb = eo, ea, eb
	}
	return out, true
}

// twoWayChunks splits a and b where they agree and where they differ.
func twoWayChunks(a, b []string) ([]chunk, bool) {
	ops, ok := diffLines(a, b)
	if !ok {
		return nil, false
	}
	var out []chunk
	for i := 0; i < len(ops); {
		j := i
		if ops[i].kind == ' ' {
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			c := chunk{stable: true, ours: a[ops[i].ai : ops[j-1].ai+1]}
			c.base, c.theirs = c.ours, c.ours
			out = append(out, c)
		} else {
			c := chunk{noBase: true}
			for ; j < len(ops) && ops[j].kind != ' '; j++ {
				if ops[j].kind == '-' {
					c.ours = append(c.ours, ops[j].line)
				} else {
					c.theirs = append(c.theirs, ops[j].line)
				}
			}
			out = append(out, c)
		}
		i = j
	}
	return out, true
}

// matches maps each line of o to the line of x it is kept as, or -1.
func matches(o, x []string) ([]int, bool) {
	ops, ok := diffLines(o, x)
	if !ok {
		return nil, false
	}
	m := make([]int, len(o))
	for i := range m {
		m[i] = -1
	}
	for _, op := range ops {
		if op.kind == ' ' {
			m[op.ai] = op.bi
		}
	}
	return m, true
}

// rawLines splits b into lines, each with its newline; the last may have
// none.
func rawLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

func equalLines(x, y []string) bool { return slices.Equal(x, y) }
