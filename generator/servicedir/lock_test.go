package servicedir

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

func TestLockRoundTrip(t *testing.T) {
	l := Lock{"cmd/x/main.go": {Owner: OwnedByGsgen, Hash: Hash([]byte("a"))}, "internal/httpapi/routes.go": {Owner: OwnedByUser, Hash: Hash([]byte("b"))}}
	back, err := ParseLock(l.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, back); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
	var ie *problem.InputError
	if _, err := ParseLock([]byte("gsgen abc main.go\n")); !errors.As(err, &ie) || !strings.Contains(err.Error(), "gsgen.lock:1") {
		t.Errorf("bad line: %v", err)
	}
}
