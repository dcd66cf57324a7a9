package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// writeService generates a into a new directory, as gsgen new does.
func writeService(t *testing.T, a answers.Answers) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), a.Name)
	_, files, err := Generate(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := servicedir.DiffTarget(dir, files.Files(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRegenerateRemovesWhatIsNoLongerPlanned(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http", "kafka"}})
	svc := readService(t, dir)
	a, err := svc.Answers.RemoveComponent(model.Kafka, "")
	if err != nil {
		t.Fatal(err)
	}
	_, cs, err := svc.Regenerate(a.WithDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]servicedir.Action{}
	for _, c := range cs {
		actions[c.Path] = c.Action
	}
	for path, want := range map[string]servicedir.Action{
		"internal/consumer/consumer.go":          servicedir.Delete,
		"internal/consumer/events_handler.go":    servicedir.Leave,
		"db/migrations/0002_processed_event.sql": servicedir.Delete,
		"internal/httpapi/routes.go":             servicedir.Keep,
		"go.mod":                                 servicedir.Overwrite,
		"cmd/shop/main.go":                       servicedir.Overwrite,
		"internal/db/processed_event.sql.go":     servicedir.Delete,
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
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	svc, err := ReadService(d)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// A handler of the user's from before batched consumers (its Handle takes no
// transaction) is kept as it is, with a warning that says what to change;
// the handler gsgen writes today gets none.
func TestRegenerateWarnsOfAnOlderHandler(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"kafka"}})
	warned := func() []string {
		t.Helper()
		d, err := servicedir.OpenServiceDir(dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close() // the next call opens it again
		svc, err := ReadService(d)
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
