package httpapi

// This file is yours, like routes.go: gsgen wrote it once and will not touch
// it again. It shows how to test a handler: through the mux Routes fills, so
// the route pattern is tested with it, and in-process, with no port.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	mux := http.NewServeMux()
	Routes(mux, Deps{})

	for _, tc := range []struct {
		path     string
		status   int
		greeting string
	}{
		{"/hello/ada", http.StatusOK, "hello, ada"},
		{"/hello/", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.status {
			t.Errorf("GET %s = %d, want %d", tc.path, rec.Code, tc.status)
			continue
		}
		if tc.status != http.StatusOK {
			continue
		}
		var body map[string]string
		if err := json.NewDecoder(rec.Body).Decode(&body); err != nil || body["greeting"] != tc.greeting {
			t.Errorf("GET %s: body %v (%v), want greeting %q", tc.path, body, err, tc.greeting)
		}
	}
}

// A request whose client has gone away does no work and writes nothing.
func TestHelloStopsWhenTheClientIsGone(t *testing.T) {
	mux := http.NewServeMux()
	Routes(mux, Deps{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/hello/ada", nil).WithContext(ctx))
	if rec.Body.Len() != 0 {
		t.Errorf("wrote %q for a client that is gone", rec.Body.String())
	}
}
