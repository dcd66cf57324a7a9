package model

import (
	"fmt"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// limits bound the counts; each fits an int32, which pgx and the queries use.
var limits = Limits{OutboxBatchSize: 10000, OutboxRelays: OutboxSlots, CleanerBatchSize: 10000, AsynqConcurrency: 1000, DatabaseMaxConns: 1000, RedisDB: 15,
	OutboxMaxAttempts: 1000, ConsumerMaxAttempts: 100, QueuePriority: 100, TaskMaxRetry: 100,
	ConsumerBatchSize: 10000}

// maxRetention bounds a cleaner's retention and interval: beyond it the
// cutoff time.Now().Add(-retention) stops meaning anything.
const maxRetention = 10 * 365 * 24 * time.Hour

func count(field string, v, max int) setting { return setting{field, int64(v), int64(max), ""} }

func duration(field string, v answers.Duration, max time.Duration) setting {
	return setting{field, int64(v), int64(max), "duration"}
}

// setting is one numeric component answer and its bounds.
type setting struct {
	field string
	v     int64
	max   int64
	unit  string // "" for a count, "duration" for a time.Duration
}

// boundedSettings refuses a component answer below zero or above its limit.
// Zero means "not answered" and takes the default, so flags, files and
// prompts refuse zero themselves.
func boundedSettings(a answers.Answers) error {
	var settings []setting
	for _, k := range Kinds {
		if k.settings != nil {
			settings = append(settings, k.settings(a)...)
		}
	}
	for _, s := range settings {
		show := func(v int64) string {
			if s.unit == "duration" {
				return problem.Seconds(time.Duration(v))
			}
			return fmt.Sprint(v)
		}
		switch {
		case s.v < 0:
			return &problem.InputError{Field: s.field, Msg: "must not be negative", Fix: "give a positive value, or leave it out to take the default"}
		case s.v > s.max:
			return &problem.InputError{Field: s.field, Msg: fmt.Sprintf("%s is more than %s, the most the service accepts", show(s.v), show(s.max)),
				Fix: fmt.Sprintf("give at most %s", show(s.max))}
		}
	}
	return nil
}
