package generator

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// What a template writes when it reads the table, with the functions
// render gives it: a count, a duration as Go, a share of a Go expression.
func TestTemplatesReadTheContract(t *testing.T) {
	tmpl := template.Must(template.New("").Funcs(template.FuncMap{"goDuration": render.GoDuration}).Parse(
		`{{.Contract "outbox.slots"}}|{{goDuration (.Contract "kafka.rebalance_timeout")}}|{{(.Contract "close.clients").Of "cfg.CloseTimeout"}}`))
	var b bytes.Buffer
	if err := tmpl.Execute(&b, render.Data{Model: &model.Model{}}); err != nil {
		t.Fatal(err)
	}
	if want := "16|30 * time.Second|cfg.CloseTimeout * 3 / 4"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	bad := template.Must(template.New("").Parse(`{{.Contract "no.such"}}`))
	if err := bad.Execute(&b, render.Data{Model: &model.Model{}}); err == nil || !strings.Contains(err.Error(), `the contract has no number "no.such"`) {
		t.Errorf("an unknown key rendered: %v", err)
	}
}

// A share in prose: its words, and the words of what it leaves; a share
// with no words fails the render instead of writing nothing.
func TestShareWords(t *testing.T) {
	tmpl := template.Must(template.New("").Parse(
		`{{(.Contract "close.clients").Words}}|{{(.Contract "close.clients").Rest.Words}}|{{(.Contract "lease.renew").Words}}`))
	var b bytes.Buffer
	if err := tmpl.Execute(&b, render.Data{Model: &model.Model{}}); err != nil {
		t.Fatal(err)
	}
	if want := "three quarters|quarter|third"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if got := (model.Share{Num: 2, Den: 3}).Rest(); got != (model.Share{Num: 1, Den: 3}) {
		t.Errorf("Share{2, 3}.Rest() = %v, want 1/3", got)
	}
	if w, err := (model.Share{Num: 2, Den: 5}).Words(); err == nil || !strings.Contains(err.Error(), "no words for the share 2/5") {
		t.Errorf("Share{2, 5}.Words() = %q, %v; want an error naming 2/5", w, err)
	}
}

// A few of the service's sentences state a number of the table in words
// that wrap where a template cannot place it whole ("at three / quarters"),
// or as the steps between two of its numbers (the consumer's backoff): the
// rendered README.md, internal/lease/lease.go and cmd/orders/main_test.go
// are held to the table here.
func TestServiceSaysTheContract(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka", "cleaner"},
		Consumers: []answers.ConsumerAnswers{{Name: "order-events", Topic: "events"}}}
	_, files, err := Generate(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, f := range files {
		if f.Path == "README.md" || f.Path == "internal/lease/lease.go" || f.Path == "cmd/orders/main_test.go" {
			// Whitespace as one space, and a Go comment's lines as one line.
			words := slices.DeleteFunc(strings.Fields(string(f.Content)), func(w string) bool { return w == "//" })
			texts[f.Path] = strings.Join(words, " ")
		}
	}
	keep, err := model.LeaseKeepShare.Words()
	if err != nil {
		t.Fatal(err)
	}
	clients, err := model.ClientsCloseShare.Words()
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for d := model.ConsumerBackoffMin; d <= 8*model.ConsumerBackoffMin && d < model.ConsumerBackoffMax; d *= 2 {
		steps = append(steps, strconv.FormatFloat(d.Seconds(), 'f', -1, 64)+"s")
	}
	backoff := steps[0] + ", then " + strings.Join(steps[1:], ", ") + " (doubling, at most " + problem.Seconds(model.ConsumerBackoffMax) + ")"
	for _, c := range []struct{ file, pattern, want string }{
		{"README.md", `at (\w+ \w+) of the TTL its run's context is cancelled`, keep},
		{"README.md", `tried again after (\S+, then [^)]*\))`, backoff},
		{"internal/lease/lease.go", `cuts its run off at (\w+ \w+) of it after the last renewal`, keep},
		{"internal/lease/lease.go", `as long as a renewal worked within (\w+ \w+) of the TTL`, keep},
		{"cmd/orders/main_test.go", `inside the clients' (\w+ \w+), and the pool`, clients},
	} {
		text, ok := texts[c.file]
		if !ok {
			t.Fatalf("the full preset has no %s", c.file)
		}
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(text)
		switch {
		case m == nil:
			t.Errorf("%s no longer says /%s/: fix the pattern or the template", c.file, c.pattern)
		case m[1] != c.want:
			t.Errorf("%s says %q, the contract (generator/model/contract.go) %q", c.file, m[1], c.want)
		}
	}
}
