package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
)

// Routes registers the service's handlers on mux. This file is yours: gsgen
// wrote it once and never overwrites it. The probes /healthz and /readyz are
// registered in server.go; do not register them here.
func Routes(mux *http.ServeMux, deps Deps) {
	mux.HandleFunc("GET /hello/{name}", hello)
}

// hello is an example handler; replace it with your own. It passes
// r.Context() to the work it does: that context ends when the client goes
// away, and the work should stop with it instead of finishing for nobody.
func hello(w http.ResponseWriter, r *http.Request) {
	greeting, err := greet(r.Context(), r.PathValue("name"))
	if err != nil {
		// The client is gone; nobody will read a response.
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"greeting": greeting})
}

// greet stands in for real work that takes a context: a query, a call to
// another service.
func greet(ctx context.Context, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "hello, " + name, nil
}
