package generator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// regen runs gsgen regen on dir as the CLI does: the answers of its
// gsgen.yaml, defaults applied, then the changes written.
func regen(t *testing.T, dir string) *model.Model {
	t.Helper()
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	svc, err := ReadService(d)
	if err != nil {
		t.Fatal(err)
	}
	m, cs, err := svc.Regenerate(svc.Answers.WithDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Apply(cs); err != nil {
		t.Fatal(err)
	}
	return m
}

func readAnswersOf(t *testing.T, dir string) answers.Answers {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, answers.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	a, err := answers.ParseAnswersFile(answers.AnswersFile, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ciNotes(m *model.Model) []string {
	var out []string
	for _, w := range m.Warnings() {
		if strings.HasPrefix(w, model.CIWorkflowPath) {
			out = append(out, w)
		}
	}
	return out
}

func fileThere(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// A new service gets the workflow, and gsgen.yaml says ci: github.
func TestNewServiceHasCI(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop"})
	if !fileThere(t, filepath.Join(dir, model.CIWorkflowPath)) {
		t.Fatalf("%s not written", model.CIWorkflowPath)
	}
	if ci := readAnswersOf(t, dir).CI; ci != answers.CIGitHub {
		t.Errorf("gsgen.yaml says ci: %q, want github", ci)
	}
}

// A workflow the user deleted is not given back: regen says so and records
// ci: none, and the next regen leaves it out without a word. ci: github
// brings it back.
func TestRegenRespectsADeletedWorkflow(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http", "outbox"}})
	wf := filepath.Join(dir, model.CIWorkflowPath)
	if err := os.Remove(wf); err != nil {
		t.Fatal(err)
	}
	notes := ciNotes(regen(t, dir))
	if fileThere(t, wf) {
		t.Fatal("regen brought the deleted workflow back")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "deleted since gsgen wrote it") || !strings.Contains(notes[0], "ci: none") || !strings.Contains(notes[0], "set ci: github") {
		t.Errorf("notes %q, want one saying it was deleted, ci: none now, and how to have it back", notes)
	}
	if ci := readAnswersOf(t, dir).CI; ci != answers.CINone {
		t.Errorf("gsgen.yaml says ci: %q after the deletion, want none", ci)
	}
	if notes := ciNotes(regen(t, dir)); len(notes) != 0 || fileThere(t, wf) {
		t.Errorf("second regen: notes %q, workflow there: %v; want neither", notes, fileThere(t, wf))
	}

	a := readAnswersOf(t, dir)
	a.CI = answers.CIGitHub
	data, err := answers.MarshalAnswersFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, answers.AnswersFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	regen(t, dir)
	if !fileThere(t, wf) {
		t.Error("ci: github did not bring the workflow back")
	}
}

// The gsgen.yaml of an older gsgen has no ci: key. Regen takes it as
// github and adds the workflow, unless a workflow gsgen did not write is
// in its place: that one is the user's, kept byte for byte, and ci: none
// recorded.
func TestRegenOfAnOlderService(t *testing.T) {
	for _, own := range []bool{false, true} {
		dir := writeService(t, answers.Answers{Name: "shop"})
		wf := filepath.Join(dir, model.CIWorkflowPath)
		if err := os.Remove(wf); err != nil {
			t.Fatal(err)
		}
		// What an older gsgen left: no ci: key, no workflow in gsgen.lock.
		yaml, _ := os.ReadFile(filepath.Join(dir, answers.AnswersFile))
		older := strings.Replace(string(yaml), "ci: github\n", "", 1)
		if older == string(yaml) {
			t.Fatalf("gsgen.yaml has no ci: github line:\n%s", yaml)
		}
		lock, _ := os.ReadFile(filepath.Join(dir, servicedir.LockFile))
		var kept []string
		for _, l := range strings.Split(string(lock), "\n") {
			if !strings.HasSuffix(l, "  "+model.CIWorkflowPath) {
				kept = append(kept, l)
			}
		}
		mine := "name: our own ci\non: push\njobs: {}\n"
		for path, content := range map[string]string{answers.AnswersFile: older, servicedir.LockFile: strings.Join(kept, "\n")} {
			if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if own {
			if err := os.WriteFile(wf, []byte(mine), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		notes := ciNotes(regen(t, dir))
		got, err := os.ReadFile(wf)
		if err != nil {
			t.Fatal(err)
		}
		ci := readAnswersOf(t, dir).CI
		switch {
		case !own && (ci != answers.CIGitHub || !strings.Contains(string(got), render.GeneratedMarker) || len(notes) != 0):
			t.Errorf("without a workflow: ci: %q, notes %q, workflow:\n%s\nwant gsgen's workflow and ci: github", ci, notes, got)
		case own && (ci != answers.CINone || string(got) != mine || len(notes) != 1 || !strings.Contains(notes[0], "gsgen did not write it")):
			t.Errorf("with the user's workflow: ci: %q, notes %q, workflow:\n%s\nwant theirs kept, ci: none and a note", ci, notes, got)
		}
	}
}

// ci: none writes no workflow; any other word is refused, naming the key.
func TestCIAnswer(t *testing.T) {
	_, files, err := Generate(answers.Answers{Name: "shop", CI: answers.CINone}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, ".github/") {
			t.Errorf("ci: none wrote %s", f.Path)
		}
	}
	_, _, err = Generate(answers.Answers{Name: "shop", CI: "gitlab"}.WithDefaults())
	var ie *problem.InputError
	if !errors.As(err, &ie) || ie.Field != "ci" || !strings.Contains(err.Error(), `"gitlab"`) || !strings.Contains(err.Error(), "github") {
		t.Errorf("ci: gitlab gave %v, want an InputError on ci naming the choices", err)
	}
	a, err := answers.ParseAnswersFile("gsgen.yaml", []byte("name: shop\nci: [github]\n"))
	if err == nil {
		t.Errorf("ci: [github] parsed as %q", a.CI)
	}
}

// The workflow runs the gsgen vet the model pins (model's
// TestWorkflowPinsTheRelease: the release that wrote it), in both its steps.
func TestWorkflowRunsThePinnedVet(t *testing.T) {
	m, err := NewModel(answers.Answers{Name: "shop"}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	m.CI.GsgenVet = "github.com/gsgen-dev/gsgen/cmd/gsgen@v1.4.2"
	plan, err := render.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	files, err := render.Render(m, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == model.CIWorkflowPath {
			if n := strings.Count(string(f.Content), "go run github.com/gsgen-dev/gsgen/cmd/gsgen@v1.4.2 vet"); n != 2 {
				t.Errorf("the workflow runs gsgen@v1.4.2 %d times, want 2 (text and SARIF):\n%s", n, f.Content)
			}
			return
		}
	}
	t.Fatal("no workflow generated")
}

// ci: none set by hand removes gsgen's workflow, as removing a component
// removes its files, but leaves one edited by hand: the edits make it the
// user's. With ci: github an edited workflow stops regen with the diff, and
// the message says how to keep it.
func TestCINoneRemovesGsgensWorkflow(t *testing.T) {
	for _, edited := range []bool{false, true} {
		dir := writeService(t, answers.Answers{Name: "shop"})
		wf := filepath.Join(dir, model.CIWorkflowPath)
		ours := "name: ours now\n"
		if edited {
			if err := os.WriteFile(wf, []byte(ours), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, err := servicedir.OpenServiceDir(dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := ReadService(d)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = svc.Regenerate(svc.Answers.WithDefaults(), false)
		var he *HandEditError
		if edited && (!errors.As(err, &he) || !strings.Contains(err.Error(), "set ci: none")) {
			t.Errorf("ci: github, the workflow edited: %v, want a hand-edit error saying ci: none keeps it", err)
		}
		a := svc.Answers.WithDefaults()
		a.CI = answers.CINone
		_, cs, err := svc.Regenerate(a, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Apply(cs); err != nil {
			t.Fatal(err)
		}
		d.Close()
		got, err := os.ReadFile(wf)
		switch {
		case !edited && err == nil:
			t.Error("ci: none left gsgen's workflow in place")
		case edited && string(got) != ours:
			t.Errorf("ci: none with the workflow edited: %q (%v), want the user's kept", got, err)
		}
		if edited {
			if notes := ciNotes(regen(t, dir)); len(notes) != 0 || !fileThere(t, wf) {
				t.Errorf("the next regen: notes %q; want none, and the user's workflow kept", notes)
			}
		}
	}
}
