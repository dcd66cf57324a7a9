package generator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	if diff := cmp.Diff(want, UnifiedDiff("a/f", "b/f", []byte(a), []byte(b))); diff != "" {
		t.Errorf("UnifiedDiff (-want +got):\n%s", diff)
	}
	if d := UnifiedDiff("a", "b", []byte(a), []byte(a)); d != "" {
		t.Errorf("equal inputs gave %q", d)
	}
	created := UnifiedDiff("/dev/null", "b/f", nil, []byte("x\ny\n"))
	if !strings.Contains(created, "@@ -0,0 +1,2 @@\n+x\n+y\n") {
		t.Errorf("creation diff:\n%s", created)
	}
	noEOL := UnifiedDiff("a", "b", []byte("x\n"), []byte("x\ny"))
	if !strings.Contains(noEOL, "+y\n\\ No newline at end of file\n") {
		t.Errorf("missing final newline not shown:\n%s", noEOL)
	}
}

func TestLockRoundTrip(t *testing.T) {
	l := Lock{"cmd/x/main.go": {OwnedByGsgen, Hash([]byte("a"))}, "internal/httpapi/routes.go": {OwnedByUser, Hash([]byte("b"))}}
	back, err := ParseLock(l.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, back); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
	var ie *InputError
	if _, err := ParseLock([]byte("gsgen abc main.go\n")); !errors.As(err, &ie) || !strings.Contains(err.Error(), "gsgen.lock:1") {
		t.Errorf("bad line: %v", err)
	}
}

func TestMergeGoMod(t *testing.T) {
	stdMod := generatedFile(t, "go.mod", "http")
	newMod := generatedFile(t, "go.mod", "http", "outbox")
	// Untouched: replaced whole, exactly what go mod tidy writes.
	got, err := mergeGoMod(stdMod, newMod)
	if err != nil || string(got) != string(newMod) {
		t.Errorf("untouched go.mod merged to:\n%s\n(err %v)", got, err)
	}
	// With a requirement of the user's: kept, and the new ones added.
	mine := append(append([]byte(nil), stdMod...), "\nrequire github.com/google/uuid v1.6.0\n"...)
	got, err = mergeGoMod(mine, newMod)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/google/uuid v1.6.0", "github.com/jackc/pgx/v5 v5.12.0", "github.com/segmentio/kafka-go v0.4.51", "module example.com/shop"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("merged go.mod lacks %q:\n%s", want, got)
		}
	}
	sum, err := mergeGoSum([]byte("github.com/google/uuid v1.6.0 h1:x=\n"), []byte("github.com/jackc/pgx/v5 v5.12.0 h1:y=\n"))
	if err != nil || string(sum) != "github.com/google/uuid v1.6.0 h1:x=\ngithub.com/jackc/pgx/v5 v5.12.0 h1:y=\n" {
		t.Errorf("merged go.sum %q (err %v)", sum, err)
	}
}

// writeService generates a into a new directory, as gsgen new does.
func writeService(t *testing.T, a Answers) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), a.Name)
	_, files, err := Generate(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := DiffTarget(dir, files, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRegenerateRemovesWhatIsNoLongerPlanned(t *testing.T) {
	dir := writeService(t, Answers{Name: "shop", Components: []string{"http", "kafka"}})
	svc := readService(t, dir)
	a, err := svc.Answers.RemoveComponent(Kafka, "")
	if err != nil {
		t.Fatal(err)
	}
	_, cs, err := svc.Regenerate(a.WithDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]Action{}
	for _, c := range cs {
		actions[c.Path] = c.Action
	}
	for path, want := range map[string]Action{
		"internal/consumer/consumer.go":          Delete,
		"internal/consumer/events_handler.go":    Leave,
		"db/migrations/0002_processed_event.sql": Delete,
		"internal/httpapi/routes.go":             Keep,
		"go.mod":                                 Overwrite,
		"cmd/shop/main.go":                       Overwrite,
		"internal/db/processed_event.sql.go":     Delete,
	} {
		if actions[path] != want {
			t.Errorf("%s: %q, want %q", path, actions[path], want)
		}
	}
	if err := svc.dir.Apply(cs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "internal/db")); !os.IsNotExist(err) {
		t.Errorf("internal/db is left behind empty or not: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "internal/consumer/events_handler.go")); err != nil {
		t.Errorf("the user's handler was removed: %v", err)
	}
}

// readService opens dir for the test and reads its service.
func readService(t *testing.T, dir string) *Service {
	t.Helper()
	d, err := OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	svc, err := d.ReadService()
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// generatedFile is the content of path in a service "shop" of components.
func generatedFile(t *testing.T, path string, components ...string) []byte {
	t.Helper()
	_, files, err := Generate(Answers{Name: "shop", Components: components}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == path {
			return f.Content
		}
	}
	t.Fatalf("no %s generated", path)
	return nil
}

// A hand edit of thousands of lines gets a bounded diff: the lines both
// sides share at their start and end are not compared, and past that a
// summary stands in for the table the diff would need.
func TestUnifiedDiffIsBounded(t *testing.T) {
	long := strings.Repeat("same\n", 100000)
	d := UnifiedDiff("a", "b", []byte(long+"old\n"+long), []byte(long+"new\n"+long))
	if !strings.Contains(d, "-old\n+new\n") || strings.Count(d, "\n") > 20 {
		t.Errorf("one changed line in a long file:\n%.500s", d)
	}
	var x, y strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&x, "a%d\n", i)
		fmt.Fprintf(&y, "b%d\n", i)
	}
	d = UnifiedDiff("a", "b", []byte(x.String()), []byte(y.String()))
	if !strings.Contains(d, "@@ -1,5000 +1,5000 @@ too many changed lines to show here") {
		t.Errorf("5000 changed lines:\n%.500s", d)
	}
}

// A handler of the user's from before batched consumers (its Handle takes no
// transaction) is kept as it is, with a warning that says what to change;
// the handler gsgen writes today gets none.
func TestRegenerateWarnsOfAnOlderHandler(t *testing.T) {
	dir := writeService(t, Answers{Name: "shop", Components: []string{"kafka"}})
	warned := func() []string {
		t.Helper()
		d, err := OpenServiceDir(dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close() // the next call opens it again
		svc, err := d.ReadService()
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := svc.Regenerate(svc.Answers.WithDefaults(), false)
		if err != nil {
			t.Fatal(err)
		}
		var ws []string
		for _, w := range m.Warnings() {
			if strings.Contains(w, "Handle") {
				ws = append(ws, w)
			}
		}
		return ws
	}
	if ws := warned(); len(ws) != 0 {
		t.Fatalf("today's handler warned of: %q", ws)
	}
	older := "package consumer\n\n// The handler of an older gsgen.\nfunc (h *EventsHandler) Handle(ctx context.Context, msg kafka.Message) error { return nil }\n"
	if err := os.WriteFile(filepath.Join(dir, "internal/consumer/events_handler.go"), []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := warned()
	if len(ws) != 1 || !strings.HasPrefix(ws[0], "internal/consumer/events_handler.go: its Handle takes no pgx.Tx") || !strings.Contains(ws[0], "Handle(ctx, tx pgx.Tx, msg)") {
		t.Errorf("warnings %q, want one naming the file and the new signature", ws)
	}
}
