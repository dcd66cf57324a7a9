package render

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Every drain on the ladder names the variable its timeout is deployed as,
// with the drain's value in the ConfigMap: config_test.go raises the longest
// drain's variable past the grace period and expects Load to refuse it (a
// service with gRPC alone, whose longest drain is gRPC's, once raised no
// variable at all and failed its own test).
func TestEveryDrainIsAVariableOfItsConfig(t *testing.T) {
	for _, s := range acceptedSpace(t) {
		m, err := NewModel(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		config := map[string]string{}
		for _, v := range m.Deploy.Config {
			config[v.Name] = v.Value
		}
		for _, d := range m.Ladder.Drains {
			if got, ok := config[d.Var]; !ok || got != problem.Seconds(d.D) {
				t.Errorf("%s: the %s's variable %q is %q in the ConfigMap (present %v), want %s", s.Shape, d.Name, d.Var, got, ok, problem.Seconds(d.D))
			}
		}
	}
}
