package answers

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

func TestParseAnswersFile(t *testing.T) {
	src := `name: orders
module: github.com/acme/orders
components: [http]
timeouts:
  grace: 90s
  http_shutdown: 40s
http:
  port: 9090
`
	got, err := ParseAnswersFile("gsgen.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Answers{Name: "orders", Module: "github.com/acme/orders", Components: []string{"http"},
		Timeouts: TimeoutAnswers{Grace: Duration(90 * time.Second), HTTPShutdown: Duration(40 * time.Second)},
		HTTP:     HTTPAnswers{Port: 9090}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestParseAnswersFileOutboxRetries(t *testing.T) {
	src := "name: orders\ncomponents: [outbox]\noutbox:\n  max_attempts: 5\n  backoff_min: 250ms\n  backoff_max: 2m\n"
	got, err := ParseAnswersFile("gsgen.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := OutboxAnswers{MaxAttempts: 5, BackoffMin: Duration(250 * time.Millisecond), BackoffMax: Duration(2 * time.Minute)}
	if diff := cmp.Diff(want, got.Outbox); diff != "" {
		t.Errorf("outbox answers (-want +got):\n%s", diff)
	}
	// What gsgen writes back into gsgen.yaml reads the same.
	b, err := MarshalAnswersFile(got.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"max_attempts: 5", "backoff_min: 250ms", "backoff_max: 120s"} {
		if !strings.Contains(string(b), line) {
			t.Errorf("gsgen.yaml lacks %q:\n%s", line, b)
		}
	}
}

func TestAnswersFileRoundTrip(t *testing.T) {
	a := Answers{Name: "orders"}.WithDefaults()
	b, err := MarshalAnswersFile(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseAnswersFile("gsgen.yaml", b)
	if err != nil {
		t.Fatalf("reading back what gsgen wrote: %v\n%s", err, b)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
}

func TestParseAnswersFileRejects(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown top-level key", "name: orders\nmodul: x\n", `gsgen.yaml:2: modul: unknown key; did you mean "module"? known keys here: asynq, ci, cleaners, components, grpc, http, kafka, module, name, outbox, tasks, timeouts, tracing, workers`},
		{"unknown timeout key", "timeouts:\n  grace: 60s\n  htttp_shutdown: 25s\n", "gsgen.yaml:3: timeouts.htttp_shutdown: unknown key"},
		{"bad duration", "timeouts:\n  grace: sixty\n", `gsgen.yaml:2: timeouts.grace: "sixty" is not a duration`},
		{"duration without unit", "timeouts:\n  grace: 60\n", `gsgen.yaml:2: timeouts.grace: "60" is not a duration`},
		{"zero duration", "timeouts:\n  margin: 0s\n", "gsgen.yaml:2: timeouts.margin: 0s must be positive"},
		{"negative duration", "timeouts:\n  margin: -5s\n", "gsgen.yaml:2: timeouts.margin: -5s must be positive"},
		{"malformed yaml", "name: [orders\n", "gsgen.yaml: not valid YAML"},
		{"not a mapping", "- orders\n", "gsgen.yaml:1: top level: expected a mapping"},
		{"empty file", "", "gsgen.yaml: the answers file is empty"},
		{"two documents", "name: a\n---\nname: b\n", "more than one YAML document"},
		{"key twice", "name: a\nname: b\n", "gsgen.yaml:2: name: given twice"},
		{"port not a number", "http:\n  port: eighty\n", `gsgen.yaml:2: http.port: "eighty" is not a whole number`},
		{"components empty", "components: []\n", "gsgen.yaml:1: components: is empty"},
		{"timeouts a list", "timeouts: [1s]\n", "gsgen.yaml:1: timeouts: expected a mapping"},
		{"outbox attempts zero", "outbox:\n  max_attempts: 0\n", "gsgen.yaml:2: outbox.max_attempts: 0 must be positive"},
		{"consumer batch size zero", "kafka:\n  - name: pay\n    batch_size: 0\n", "gsgen.yaml:3: kafka[0].batch_size: 0 must be positive"},
		{"outbox backoff not a duration", "outbox:\n  backoff_max: 1 minute\n", `gsgen.yaml:2: outbox.backoff_max: "1 minute" is not a duration`},
		{"outbox backoff misspelt", "outbox:\n  backof_min: 1s\n", `did you mean "backoff_min"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseAnswersFile("gsgen.yaml", []byte(c.src))
			var ie *problem.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *problem.InputError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}
