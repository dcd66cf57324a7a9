package answers

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The answers typed as text at a prompt, parsed: each error says what is
// wrong with the text in the prompt's terms.

// ParseDuration reads a positive duration in Go syntax.
func ParseDuration(s string, into *Duration) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a duration; write it in Go syntax, e.g. 25s, 1m30s or 500ms", problem.Quote(s))
	case d <= 0:
		return fmt.Errorf("%s must be positive", problem.Shorten(s))
	}
	*into = Duration(d)
	return nil
}

// ParseRetries reads a number of retries: 0 or more.
func ParseRetries(s string, into **int) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a whole number", problem.Quote(s))
	case n < 0:
		return fmt.Errorf("%d is negative; give 0 (never retried) or more", n)
	}
	*into = Retries(n)
	return nil
}

// ParseCount reads a positive whole number.
func ParseCount(s string, into *int) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a whole number", problem.Quote(s))
	case n <= 0:
		return fmt.Errorf("%d must be positive", n)
	}
	*into = n
	return nil
}
