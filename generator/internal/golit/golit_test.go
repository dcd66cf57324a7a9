package golit

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		25 * time.Second:        "25 * time.Second",
		time.Second:             "time.Second",
		500 * time.Millisecond:  "500 * time.Millisecond",
		90 * time.Second:        "90 * time.Second",
		2 * time.Minute:         "2 * time.Minute",
		168 * time.Hour:         "168 * time.Hour",
		1500 * time.Microsecond: "1500 * time.Microsecond",
		1500 * time.Nanosecond:  "1500 * time.Nanosecond",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStrings(t *testing.T) {
	if got, want := Strings([]string{"a", `b"c`}), `"a", "b\"c"`; got != want {
		t.Errorf("Strings = %s, want %s", got, want)
	}
	if got := Strings(nil); got != "" {
		t.Errorf("Strings(nil) = %q, want empty", got)
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{"order-events": "OrderEvents", "x": "X", "a--b": "AB", "events2": "Events2"} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
