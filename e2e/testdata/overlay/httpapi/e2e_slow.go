package httpapi

// Added by gsgen's end-to-end tests to the service they build, next to the
// user's routes (routes.go is the user's file, so this is what a user adding
// a handler would do). It is not part of what gsgen generates.

import (
	"io"
	"log/slog"
	"net/http"
	"time"
)

// e2eSlow answers 200 "done" after the duration in ?for= (e.g. 2s). It logs
// "e2e request started" when a request arrives, so the test knows when every
// request it sent is in flight, and gives up when the client goes away.
func e2eSlow(log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("for"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		log.Info("e2e request started", "id", r.URL.Query().Get("id"))
		select {
		case <-time.After(d):
			_, _ = io.WriteString(w, "done")
		case <-r.Context().Done():
		}
	}
}
