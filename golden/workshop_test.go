package golden

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The workshop script (docs/workshop.md) is held to the tool: its table of
// main.go lines is checked against golden/full, and the blocks of commands
// that need no server are run as the room runs them, their output compared
// with the output the script quotes. A template change that moves a line or
// changes an output fails here until the script follows.

const workshopDoc = "../docs/workshop.md"

// fence is one fenced block of a Markdown file.
type fence struct {
	lang  string
	lines []string
	line  int // the line of its opening fence, for messages
}

func fences(t *testing.T, path string) []fence {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	var cur *fence
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &fence{lang: strings.TrimPrefix(l, "```"), line: i + 1}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// TestWorkshopMainLines: each row of the table "Walk it in this order" gives
// the line of golden/full's main.go where the first code it quotes is (the
// first such line after the row before it).
func TestWorkshopMainLines(t *testing.T) {
	doc, err := os.ReadFile(workshopDoc)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("full", "cmd", "orders", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	mainLines := strings.Split(string(src), "\n")
	_, table, ok := strings.Cut(string(doc), "| line | what to point at |\n| --- | --- |\n")
	if !ok {
		t.Fatal("docs/workshop.md has no table | line | what to point at |: has its shape changed?")
	}
	row := regexp.MustCompile("^\\| (\\d+) \\| [^`|]*`([^`]+)`")
	prev, rows := 0, 0
	for _, l := range strings.Split(table, "\n") {
		if !strings.HasPrefix(l, "|") {
			break
		}
		m := row.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("row %q: want | LINE | ... `code on that line` ... |", l)
			continue
		}
		rows++
		line, _ := strconv.Atoi(m[1])
		found := 0
		for i := prev; i < len(mainLines); i++ {
			if strings.Contains(mainLines[i], m[2]) {
				found = i + 1
				break
			}
		}
		switch {
		case found == 0:
			t.Errorf("row %q: no line of golden/full/cmd/orders/main.go after line %d holds %q", l, prev, m[2])
		case found != line:
			t.Errorf("row %q: %q is on line %d of golden/full/cmd/orders/main.go, not %d", l, m[2], found, line)
		}
		if found > 0 {
			prev = found
		}
	}
	if rows < 10 {
		t.Errorf("only %d rows in the table of main.go lines", rows)
	}
}

// workshopStep is a block of the script's commands that the test runs.
type workshopStep struct {
	block string // a line of the sh block, which finds it
	// before, when set, runs the block's lines before the first that holds
	// it (the rest needs a server).
	before string
	// compare says the text block that follows the commands is their output.
	compare bool
	// diff, instead of a block, applies the script's next diff block to this
	// file (the room edits it by hand).
	diff string
}

// The blocks that need no server, in the order of the script: each runs in
// the directory the one before left, in one workspace for the whole run.
var workshopSteps = []workshopStep{
	{block: "diff -r orders \"$GSGEN/golden/full\" && echo IDENTICAL", compare: true},
	{block: "gsgen plan ./orders", compare: true},
	{block: `gsgen plan ./orders --http-shutdown 50s; echo "exit=$?"`, compare: true},
	{block: `gsgen plan -f "$GSGEN/golden/full.yaml" --close-budget 30s 2>&1 >/dev/null`, compare: true},
	{block: "cat > internal/httpapi/slow.go <<'EOF'", before: "make build"},
	{block: "sha256sum internal/httpapi/routes.go internal/httpapi/slow.go > /tmp/ws/mine.sha", compare: true},
	{block: "gsgen add kafka payments --topic payments", compare: true},
	{block: "gsgen add cleaner expired-sessions --table sessions --column expires_at --retention 720h", compare: true},
	{block: "cat > db/migrations/0100_sessions.sql <<'EOF'", compare: true},
	{block: `gsgen vet --manifests deploy/k8s; echo "exit=$?"`, compare: true},
	{block: "cp -r orders orders-broken", compare: true},
	{block: "cp ../orders/cmd/orders/main.go cmd/orders/main.go"},
	{diff: "cmd/orders/main.go"},
	{block: `gsgen vet; echo "exit=$?"`, compare: true},
	{block: "sed -i 's/shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.HTTPShutdownTimeout)/shutdownCtx, cancel := context.WithTimeout(ctx, cfg.HTTPShutdownTimeout)/' cmd/orders/main.go", compare: true},
	{block: `gsgen regen; echo "exit=$?"`, compare: true},
	{block: "sed -i 's/terminationGracePeriodSeconds: 60/terminationGracePeriodSeconds: 30/' deploy/k8s/deployment.yaml", compare: true},
}

// TestWorkshopCommands runs the script's blocks that need no server with a
// gsgen built from this checkout, in a workspace of its own (where the script
// says /tmp/ws), and compares what each prints with what the script quotes.
func TestWorkshopCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gsgen and runs the workshop's commands (gsgen vet loads the service); skipped with -short")
	}
	ws := t.TempDir()
	bin := filepath.Join(ws, "bin")
	build := exec.Command("go", "build", "-o", bin+"/gsgen", "github.com/gsgen-dev/gsgen/cmd/gsgen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build gsgen: %v\n%s", err, out)
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fences(t, workshopDoc)
	cwd, cwdFile := ws, filepath.Join(ws, ".cwd")
	next := 0 // steps are found in the script's order
	for _, s := range workshopSteps {
		if s.diff != "" {
			next = applyDiff(t, blocks, next, filepath.Join(cwd, s.diff))
			continue
		}
		i := next
		for ; i < len(blocks); i++ {
			if blocks[i].lang == "sh" && containsLine(blocks[i].lines, s.block) {
				break
			}
		}
		if i == len(blocks) {
			t.Fatalf("docs/workshop.md has no sh block with the line %q after line %d: update workshopSteps with the script", s.block, blocks[next].line)
		}
		next = i + 1
		lines := blocks[i].lines
		if s.before != "" {
			for j, l := range lines {
				if strings.Contains(l, s.before) {
					lines = lines[:j]
					break
				}
			}
		}
		script := strings.ReplaceAll(strings.Join(lines, "\n"), "/tmp/ws", ws)
		cmd := exec.Command("bash", "-c", script+"\npwd >"+cwdFile)
		cmd.Dir = cwd
		cmd.Env = append(serviceTestEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GSGEN="+repo)
		out, _ := cmd.CombinedOutput() // the blocks show failing commands and their exit codes on purpose
		if b, err := os.ReadFile(cwdFile); err == nil {
			cwd = strings.TrimSpace(string(b))
		}
		if !s.compare {
			continue
		}
		if next >= len(blocks) || blocks[next].lang != "text" {
			t.Errorf("docs/workshop.md line %d: the block with %q is not followed by its output (a text block)", blocks[i].line, s.block)
			continue
		}
		got := strings.ReplaceAll(string(out), ws, "/tmp/ws")
		if err := matchQuoted(blocks[next].lines, strings.Split(strings.TrimRight(got, "\n"), "\n")); err != nil {
			t.Errorf("docs/workshop.md line %d quotes what the commands of line %d do not print: %v\nthe commands printed:\n%s", blocks[next].line, blocks[i].line, err, got)
		}
		next++
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// matchQuoted checks that quoted is out, where a line "..." in quoted stands
// for any number of lines. Lines are compared without trailing spaces.
// Durations, times and ids that differ from run to run are not in the blocks
// the test runs.
func matchQuoted(quoted, out []string) error {
	var segs [][]string
	cur := []string{}
	for _, q := range quoted {
		if q == "..." {
			segs = append(segs, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, strings.TrimRight(q, " "))
	}
	segs = append(segs, cur)
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	pos := 0
	for i, seg := range segs {
		if len(seg) == 0 {
			continue
		}
		first, last := i == 0, i == len(segs)-1
		at := -1
		switch {
		case first && last:
			if equalLines(out, seg) {
				at = 0
			}
		case first:
			if len(out) >= len(seg) && equalLines(out[:len(seg)], seg) {
				at = 0
			}
		case last:
			if n := len(out) - len(seg); n >= pos && equalLines(out[n:], seg) {
				at = n
			}
		default:
			for j := pos; j+len(seg) <= len(out); j++ {
				if equalLines(out[j:j+len(seg)], seg) {
					at = j
					break
				}
			}
		}
		if at < 0 {
			return fmt.Errorf("the quoted lines\n  %s\nare not in the output where the quote has them", strings.Join(seg, "\n  "))
		}
		pos = at + len(seg)
	}
	return nil
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// applyDiff applies the first diff block from blocks[from] to the file at
// path, as the room would by hand, and returns the index after it.
func applyDiff(t *testing.T, blocks []fence, from int, path string) int {
	t.Helper()
	for i := from; i < len(blocks); i++ {
		if blocks[i].lang != "diff" {
			continue
		}
		var old, new []string
		for _, l := range blocks[i].lines {
			switch {
			case strings.HasPrefix(l, "-"):
				old = append(old, l[1:])
			case strings.HasPrefix(l, "+"):
				new = append(new, l[1:])
			case strings.HasPrefix(l, " "):
				old, new = append(old, l[1:]), append(new, l[1:])
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		before := strings.Join(old, "\n")
		if !strings.Contains(string(b), before) {
			t.Fatalf("docs/workshop.md line %d: the diff's old lines are not in %s:\n%s", blocks[i].line, path, before)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), before, strings.Join(new, "\n"), 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return i + 1
	}
	t.Fatalf("docs/workshop.md has no diff block after line %d", blocks[from].line)
	return 0
}
