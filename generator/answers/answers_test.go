package answers

import "testing"

// TestCloneLeavesTheOriginal: setting an item of any list of the copy, or
// appending to it, leaves the answers it was copied from as they were.
func TestCloneLeavesTheOriginal(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "kafka"},
		Consumers: []ConsumerAnswers{{Name: "events"}}, Cleaners: []CleanerAnswers{{Name: "old"}},
		Workers: []WorkerAnswers{{Name: "nightly"}}, Tasks: []TaskAnswers{{Type: "report:build"}}}
	c := a.Clone()
	c.Components[0] = "grpc"
	c.Consumers[0].Name = "x"
	c.Cleaners[0].Name = "x"
	c.Workers[0].Name = "x"
	c.Tasks[0].Type = "x"
	c.Components = append(c.Components, "cleaner")
	if a.Components[0] != "http" || len(a.Components) != 2 || a.Consumers[0].Name != "events" || a.Cleaners[0].Name != "old" ||
		a.Workers[0].Name != "nightly" || a.Tasks[0].Type != "report:build" {
		t.Errorf("the copy wrote through: %+v", a)
	}
}
