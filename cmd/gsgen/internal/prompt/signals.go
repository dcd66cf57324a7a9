package prompt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Interrupted is a signal that stopped gsgen at a prompt, before anything
// was written.
type Interrupted struct{ Signal syscall.Signal }

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted at a prompt (%v): nothing written", e.Signal)
}

// ExitCode is 128 + the signal's number, as shells report a process the
// signal ended: 130 for Ctrl+C, 143 for SIGTERM, 129 for SIGHUP.
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// ErrAborted is Ctrl+C at a prompt. Nothing has been written by then.
var ErrAborted error = &Interrupted{Signal: syscall.SIGINT}

// terminating are the signals that end gsgen at a prompt: Ctrl+C outside a
// terminal form, kill, and the terminal going away.
var terminating = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// signals catches the terminating signals while questions are asked.
type signals struct {
	ctx    context.Context // done at the first signal
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{} // closed when the watching goroutine ends
	mu     sync.Mutex
	got    syscall.Signal
}

func watchSignals() *signals {
	s := &signals{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	signal.Notify(s.ch, terminating...)
	go func() {
		defer close(s.done)
		sig, ok := <-s.ch
		if !ok {
			return
		}
		s.mu.Lock()
		s.got = sig.(syscall.Signal)
		s.mu.Unlock()
		s.cancel()
	}()
	return s
}

// caught is an *Interrupted once a signal came, else nil.
func (s *signals) caught() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == 0 {
		return nil
	}
	return &Interrupted{Signal: s.got}
}

// stop gives the signals back their default action, unless one came: then
// the handler stays, so that a second signal cannot end gsgen before it
// exits 128+signal, and stop returns that *Interrupted.
func (s *signals) stop() error {
	if err := s.caught(); err != nil {
		return err
	}
	signal.Stop(s.ch)
	close(s.ch) // a signal already sent is still received
	<-s.done
	s.cancel()
	return s.caught()
}
