package generator

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// TestNothingRendersWithoutWholeSeconds: Kubernetes counts the grace period
// and the preStop sleep in whole seconds; gsgen refuses other values, through
// the whole pipeline, with the field and a value that keeps the ladder fitting.
func TestNothingRendersWithoutWholeSeconds(t *testing.T) {
	for _, c := range []struct {
		timeouts answers.TimeoutAnswers
		field    string
		fix      string
	}{
		{answers.TimeoutAnswers{Grace: answers.Duration(60500 * time.Millisecond)}, "timeouts.grace", "use 61s"},
		{answers.TimeoutAnswers{PreStop: answers.Duration(10500 * time.Millisecond)}, "timeouts.prestop", "use 10s"},
		{answers.TimeoutAnswers{PreStop: answers.Duration(500 * time.Millisecond)}, "timeouts.prestop", "use 1s"},
	} {
		_, files, err := Generate(answers.Answers{Name: "orders", Timeouts: c.timeouts}.WithDefaults())
		var input *problem.InputError
		if !errors.As(err, &input) || input.Field != c.field || input.Fix != c.fix {
			t.Errorf("%+v: got %v, want an InputError on %s saying %q", c.timeouts, err, c.field, c.fix)
		}
		if files != nil {
			t.Errorf("%+v: files rendered", c.timeouts)
		}
	}
}

// TestBrokenLadderNeverReachesAManifest: a grace period too short for the
// budget stops the pipeline before anything renders.
func TestBrokenLadderNeverReachesAManifest(t *testing.T) {
	_, files, err := Generate(answers.Answers{Name: "orders", Timeouts: answers.TimeoutAnswers{Grace: answers.Duration(30 * time.Second)}}.WithDefaults())
	var ladder *model.LadderError
	if !errors.As(err, &ladder) || ladder.Err.Field != "timeouts.grace" {
		t.Fatalf("got %v, want a LadderError on timeouts.grace", err)
	}
	if files != nil {
		t.Error("files rendered for a broken ladder")
	}
}

// Every name the manifests give an object, a container, or the app label is
// one KubernetesNames lists, so the 63-character check sees them all.
func TestKubernetesNamesAreAllListed(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq"}, Asynq: answers.AsynqAnswers{Mode: "dedicated"}}.WithDefaults()
	m, files, err := Generate(a)
	if err != nil {
		t.Fatal(err)
	}
	listed := m.KubernetesNames()
	var found []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch s, isString := x.(string); {
				case isString && k == "name" && slices.Contains([]string{"metadata", "containers", "configMapRef", "secretKeyRef"}, key):
					found = append(found, s)
				case isString && k == "app.kubernetes.io/name":
					found = append(found, s)
				default:
					walk(k, x)
				}
			}
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		}
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "deploy/k8s/") {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(f.Content))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			walk("", doc)
		}
	}
	if len(found) < 10 {
		t.Fatalf("found only %v", found)
	}
	for _, n := range found {
		if !slices.Contains(listed, n) {
			t.Errorf("the manifests use the name %q, which KubernetesNames does not list (%v)", n, listed)
		}
	}
}
