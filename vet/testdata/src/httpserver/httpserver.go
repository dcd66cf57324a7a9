package httpserver

import (
	"net/http"
	"time"
)

func bare(mux *http.ServeMux) *http.Server {
	return &http.Server{Addr: ":8080", Handler: mux} // want `http.Server without ReadHeaderTimeout`
}

func zero() *http.Server {
	return &http.Server{Addr: ":8080", ReadHeaderTimeout: 0} // want `http.Server without ReadHeaderTimeout`
}

func value() http.Server {
	srv := http.Server{Addr: ":8080"} // want `http.Server without ReadHeaderTimeout`
	return srv
}

func headers() *http.Server {
	return &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second}
}

// readTimeout bounds the headers too: ReadHeaderTimeout falls back to it.
func readTimeout() *http.Server {
	return &http.Server{Addr: ":8080", ReadTimeout: 15 * time.Second}
}

func fromConfig(d time.Duration) *http.Server {
	return &http.Server{Addr: ":8080", ReadHeaderTimeout: d}
}

func setLater() *http.Server {
	srv := &http.Server{Addr: ":8080"}
	srv.ReadHeaderTimeout = 5 * time.Second
	return srv
}

func listen(mux *http.ServeMux) error {
	return http.ListenAndServe(":8080", mux) // want `http.ListenAndServe serves with a zero http.Server`
}
