//go:build !gsgen_killtest

package servicedir

// pause marks a point of a write where the kill tests stop gsgen (see
// pause_killtest.go). In gsgen itself it does nothing.
func pause(string) {}
