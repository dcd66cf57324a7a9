package consumer

// Added by gsgen's end-to-end tests to the service they build, and called
// from the user's handler (order_events_handler.go), the way a bug in it
// would fail. It is not part of what gsgen generates.

import (
	"fmt"
	"strings"
)

// Event ids with these prefixes make the handler fail on every attempt.
const (
	e2eFailPrefix  = "e2e-fail-"  // returns an error
	e2ePanicPrefix = "e2e-panic-" // panics
)

// e2eFault fails the event ids the tests chose to be bad, and lets the
// others through to the handler's work.
func e2eFault(eventID string) error {
	switch {
	case strings.HasPrefix(eventID, e2eFailPrefix):
		return fmt.Errorf("e2e failure for %s", eventID)
	case strings.HasPrefix(eventID, e2ePanicPrefix):
		panic("e2e panic for " + eventID)
	}
	return nil
}
