package render

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// formatCase is one set of answers the cleanliness proof renders.
type formatCase struct {
	name    string
	answers answers.Answers
	userSQL map[string][]byte
}

// formatCases is every point of the accepted space, and the largest points
// again with names and values of the user's: gofmt aligns struct fields,
// trailing comments and key/value columns, and sorts imports, so the
// length of a chosen name or the order of a module path among the imports
// can change what gofmt makes of a template's output.
func formatCases(t *testing.T) []formatCase {
	t.Helper()
	var cases []formatCase
	for _, s := range acceptedSpace(t) {
		cases = append(cases, formatCase{s.Shape, s.Answers, s.UserSQL})
	}
	long := "a-long-name-the-user-chose-to-move-c" // 36: with the suffixes below, up to the 40 an instance name may have
	names := []string{"a", "ab", "orders", long}
	modules := []string{"a.io/x", "example.com/svc", "zzz.dev/x", "github.com/an-organisation/a-rather-long-repository/services/name"}
	durations := []time.Duration{time.Second, 1500 * time.Millisecond, 2 * time.Hour}
	short := []time.Duration{time.Second, 3 * time.Second, 2 * time.Second} // whole seconds that fit the shutdown budgets
	for _, base := range []string{"s-hoakc-i-g-wt", "s-hoakc-i-g-wt-tr", "s-hoakc-d-u", "s-hac-i-u-tr"} {
		i := slices.IndexFunc(cases, func(c formatCase) bool { return c.name == base })
		if i < 0 {
			t.Fatalf("no shape %s in the accepted space", base)
		}
		b := cases[i]
		for j, n := range names {
			a := b.answers
			a.Name = n
			a.Module = modules[j]
			// Instances of mixed lengths in one service: their names end up
			// side by side in lists and literals.
			if !slices.Contains(a.Components, "kafka") {
				a.Consumers = nil
			} else {
				a.Consumers = []answers.ConsumerAnswers{
					{Name: n, Topic: n},
					{Name: names[(j+1)%len(names)] + "-c", Topic: "t." + names[(j+2)%len(names)], HandlerTimeout: answers.Duration(short[j%len(short)])},
				}
			}
			a.Workers = []answers.WorkerAnswers{
				{Name: n + "-w", Interval: answers.Duration(durations[j%len(durations)])},
				{Name: names[(j+3)%len(names)], Cron: "0 9 * * 1", Timezone: "Europe/Paris"},
			}
			if slices.Contains(a.Components, "asynq") {
				a.Tasks = []answers.TaskAnswers{
					{Type: n + ":build", Queue: names[(j+1)%len(names)]},
					{Type: "x", Queue: "q", Timeout: answers.Duration(short[(j+1)%len(short)])},
				}
			}
			if b.userSQL != nil {
				a.Cleaners = []answers.CleanerAnswers{
					{Name: n, Table: "orders", Column: "created_at", Interval: answers.Duration(durations[j%len(durations)])},
					{Name: names[(j+1)%len(names)] + "-old", Table: "orders", Column: "created_at"},
				}
			} else {
				a.Cleaners = nil
			}
			a.Outbox.Topic = "topic." + n
			a = a.WithDefaults()
			cases = append(cases, formatCase{fmt.Sprintf("%s-user%d", base, j), a, b.userSQL})
		}
	}
	return cases
}

// TestRuntimeFormattedTemplates is the proof that lets renderFile skip
// go/format.Source: in every case of formatCases, each Go template not on
// formattedAtRunTime renders exactly what gofmt makes of it. A listed
// template that renders gofmt-clean in every case fails too, so that the
// list only shrinks.
func TestRuntimeFormattedTemplates(t *testing.T) {
	root, err := parsed()
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		unclean string // the first case it came out unclean in
	}
	templatesSeen := map[string]*seen{}
	for _, c := range formatCases(t) {
		m, err := NewModel(c.answers, c.userSQL)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plan, err := Plan(m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, f := range plan {
			if f.ext() != ".go" {
				continue
			}
			if f.Template == "" {
				t.Errorf("%s: %s is built, not rendered from a template; renderFile formats it only if listed", c.name, f.Path)
				continue
			}
			raw, err := renderRaw(root, m, f, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			formatted, err := format.Source(raw)
			if err != nil {
				t.Fatalf("%s: %s does not parse: %v", c.name, f.Path, err)
			}
			s := templatesSeen[f.Template]
			if s == nil {
				s = &seen{}
				templatesSeen[f.Template] = s
			}
			if bytes.Equal(raw, formatted) {
				continue
			}
			if s.unclean == "" {
				s.unclean = c.name
			}
			if _, listed := formattedAtRunTime[f.Template]; !listed {
				t.Errorf("%s: %s renders %s unclean (gofmt changes it), yet renderFile would not format it; fix the template's whitespace or list it in formattedAtRunTime:\n%s",
					c.name, f.Template, f.Path, firstDiff(raw, formatted))
			}
		}
	}
	for tmpl := range formattedAtRunTime {
		s := templatesSeen[tmpl]
		switch {
		case s == nil:
			t.Errorf("%s is in formattedAtRunTime but no case renders it; remove it", tmpl)
		case s.unclean == "":
			t.Errorf("%s renders gofmt-clean in every case; remove it from formattedAtRunTime", tmpl)
		}
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d\n rendered: %q\n    gofmt: %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("rendered %d lines, gofmt %d", len(g), len(w))
}

// TestRenderFileFormatsOnlyListed shows what the list changes: a listed
// template's output is gofmt's, an unlisted one's is left as rendered, and
// a listed one that does not parse is reported as a template bug.
func TestRenderFileFormatsOnlyListed(t *testing.T) {
	unclean := "package x\nvar  a = 1\n"
	root := template.Must(template.New("test/listed.go.tmpl").Parse(unclean))
	template.Must(root.New("test/unlisted.go.tmpl").Parse(unclean))
	template.Must(root.New("test/broken.go.tmpl").Parse("package x\nvar = 1\n"))
	for _, name := range []string{"test/listed.go.tmpl", "test/broken.go.tmpl"} {
		formattedAtRunTime[name] = "a test's"
		defer delete(formattedAtRunTime, name)
	}
	m := defaultModel(t, answers.Answers{Name: "orders"})
	file := func(tmpl string) PlannedFile {
		return PlannedFile{Path: "x/x.go", Owner: OwnedByUser, Template: tmpl}
	}
	got, err := renderFile(root, m, file("test/listed.go.tmpl"), nil)
	if want := "package x\n\nvar a = 1\n"; err != nil || string(got.Content) != want {
		t.Errorf("listed: %q, %v; want gofmt's %q", got.Content, err, want)
	}
	got, err = renderFile(root, m, file("test/unlisted.go.tmpl"), nil)
	if err != nil || string(got.Content) != unclean {
		t.Errorf("unlisted: %q, %v; want it as rendered, %q", got.Content, err, unclean)
	}
	_, err = renderFile(root, m, file("test/broken.go.tmpl"), nil)
	if err == nil || !strings.Contains(err.Error(), "formatting x/x.go (a template bug)") {
		t.Errorf("broken: %v; want the formatting error of x/x.go, a template bug", err)
	}
}
