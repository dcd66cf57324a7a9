// Package textdiff compares and merges versions of a text file line by line:
// the unified diff --dry-run and hand-edit reports show, and the three-way
// merge gsgen regen and gsgen upgrade keep a user's edits with. It knows
// nothing of services: it is bytes in, bytes out.
package textdiff

import (
	"fmt"
	"strings"
)

// Unified returns the changes from a to b as a unified diff with three
// lines of context, headed by the two names; "" when they are equal.
func Unified(nameA, nameB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	ops, ok := diffLines(x, y)
	if !ok {
		fmt.Fprintf(&out, "@@ -1,%d +1,%d @@ too many changed lines to show here; compare the files with diff -u\n", len(x), len(y))
		return out.String()
	}
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before this change to context lines
		// after the last change that follows within 2*context unchanged lines.
		start, last := max(0, i-context), i
		for j := i + 1; j < len(ops) && j-last <= 2*context; j++ {
			if ops[j].kind != ' ' {
				last = j
			}
		}
		end := min(len(ops), last+context+1)
		ax, bx := ops[start].ai, ops[start].bi
		var na, nb int
		var body strings.Builder
		for _, op := range ops[start:end] {
			body.WriteString(string(op.kind) + op.line)
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(ax, na), hunkRange(bx, nb), body.String())
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines keeps each line's newline; a last line without one gets the
// usual marker so the diff shows it.
func splitLines(b []byte) []string {
	lines := rawLines(b)
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	line   string
	ai, bi int // positions in a and b before this op
}

// maxDiffCells bounds the quadratic table of diffLines (8 bytes a cell):
// a file edited into megabytes must not take gsgen's memory with it.
const maxDiffCells = 4 << 20

// diffLines is a longest-common-subsequence line diff of the lines between
// the ones a and b share at their start and end; false when those are too
// many for the quadratic table.
func diffLines(a, b []string) ([]diffOp, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if (len(a)-pre-suf+1)*(len(b)-pre-suf+1) > maxDiffCells {
		return nil, false
	}
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	for _, op := range lcsDiff(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		op.ai, op.bi = op.ai+pre, op.bi+pre
		ops = append(ops, op)
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, diffOp{' ', a[len(a)-k], len(a) - k, len(b) - k})
	}
	return ops, true
}

// lcsDiff is the quadratic longest-common-subsequence diff of a and b.
func lcsDiff(a, b []string) []diffOp {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], i, j}) // deletions first, as diff(1) prints them
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
