package shutdownctx

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func notifyCtx(srv *http.Server) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go srv.ListenAndServe()
	<-ctx.Done()
	srv.Shutdown(ctx) // want `http.Server.Shutdown gets a context that is already done \(signal.NotifyContext at line 13 cancels it on SIGTERM\)`
}

func derivedFromNotify(srv *http.Server) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	shutCtx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	srv.Shutdown(shutCtx) // want `signal.NotifyContext at line 21`
}

// seedWrong cancels the background context (step 2) and then hands the
// same context to Shutdown.
func seedWrong(srv *http.Server, sigC <-chan os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	<-sigC
	cancel()
	srv.Shutdown(ctx) // want `cancel\(\) at line 35 cancelled it`
}

// seedRight is the source text's: a fresh context with the drain budget.
func seedRight(srv *http.Server, sigC <-chan os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go work(ctx)
	<-sigC
	cancel()
	shutCtx, shutCancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer shutCancel()
	srv.Shutdown(shutCtx)
}

func work(ctx context.Context) {}

func waitedParam(ctx context.Context, srv *http.Server) {
	<-ctx.Done()
	srv.Shutdown(ctx) // want `<-ctx.Done\(\) at line 54 waited for it to end`
}

func detachedParam(ctx context.Context, srv *http.Server) {
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 25*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
}

// selectOther shuts down on the other case, where ctx is still live.
func selectOther(ctx context.Context, srv *http.Server, errc <-chan error) {
	select {
	case <-ctx.Done():
		return
	case <-errc:
		srv.Shutdown(ctx)
	}
}

func selectSame(ctx context.Context, srv *http.Server) {
	select {
	case <-ctx.Done():
		srv.Shutdown(ctx) // want `<-ctx.Done\(\) at line 77 waited`
	}
}

// errorPath cancels only on a path that returns.
func errorPath(srv *http.Server, start func() error) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := start(); err != nil {
		cancel()
		return
	}
	srv.Shutdown(ctx)
}

// background waits for the slowest request, however long.
func background(srv *http.Server) {
	srv.Shutdown(context.Background()) // want `http.Server.Shutdown gets a context without a deadline`
}

func detachedNoDeadline(ctx context.Context, srv *http.Server) {
	srv.Shutdown(context.WithoutCancel(ctx)) // want `http.Server.Shutdown gets a context without a deadline`
}

// unknown comes from the caller: nothing to say.
func unknown(ctx context.Context, srv *http.Server) {
	srv.Shutdown(ctx)
}
