package generator

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// BenchmarkLockAndBase times the last step of `gsgen new` of the full
// preset: gsgen.lock and the compressed base (docs/benchmarks.md section 1,
// beside render's BenchmarkNewSteps).
func BenchmarkLockAndBase(b *testing.B) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka", "cleaner"},
		Consumers: []answers.ConsumerAnswers{{Name: "order-events", Topic: "events"}}}
	_, files, err := Generate(a.WithDefaults())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		forgetLastBase() // what Generate pays; RecordNew's encoding of the same store is then a compare
		EncodeBase(Version, servicedir.LockOf(files.Files()), baseOf(files))
	}
}
