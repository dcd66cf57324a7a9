package runloop

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"
)

func work() {}

// Relay is the source text's loop: defer wg.Done() first, select on
// ctx.Done() before each tick.
type Relay struct{ interval time.Duration }

func (r *Relay) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.batch(ctx)
		}
	}
}

func (r *Relay) batch(ctx context.Context) {}

type NoDone struct{}

func (NoDone) Run(ctx context.Context, wg *sync.WaitGroup) { // want `Run takes wg but never calls wg.Done\(\)`
	<-ctx.Done()
}

type NotDeferred struct{}

func (NotDeferred) Run(ctx context.Context, wg *sync.WaitGroup) {
	for ctx.Err() == nil {
		work()
	}
	wg.Done() // want `wg.Done\(\) is not deferred`
}

type LateDefer struct{ ready bool }

func (l LateDefer) Run(ctx context.Context, wg *sync.WaitGroup) {
	if !l.ready {
		return
	}
	defer wg.Done() // want `defer wg.Done\(\) comes after a return`
	<-ctx.Done()
}

// DeferredLiteral calls Done from a deferred literal: still deferred.
type DeferredLiteral struct{ log *slog.Logger }

func (d DeferredLiteral) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer func() {
		d.log.Info("stopped")
		wg.Done()
	}()
	<-ctx.Done()
}

// Spinner is the source text's "common mistake": for { processOneBatch(ctx) }
// with no select, and a batch that does not look at ctx either.
type Spinner struct{}

func (s *Spinner) Run(ctx context.Context, wg *sync.WaitGroup) { // want `Run never observes ctx`
	defer wg.Done()
	for {
		s.processOneBatch(ctx)
	}
}

func (s *Spinner) processOneBatch(ctx context.Context) error {
	work()
	return nil
}

// Sleeper observes ctx through a function of its own package.
type Sleeper struct{}

func (s Sleeper) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for sleep(ctx, time.Second) {
		work()
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// Dialer observes ctx by handing it to a blocking call of another package.
type Dialer struct{ addr string }

func (d Dialer) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", d.addr)
		if err != nil {
			return
		}
		conn.Close()
	}
}

// Derived observes a context derived from ctx.
type Derived struct{}

func (Derived) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		c, cancel := context.WithTimeout(ctx, time.Second)
		ok := sleep(c, time.Minute)
		cancel()
		if !ok {
			return
		}
	}
}

// Detached hands on only a context that ctx's cancellation does not reach.
type Detached struct{}

func (Detached) Run(ctx context.Context, wg *sync.WaitGroup) { // want `Run never observes ctx`
	defer wg.Done()
	for {
		sleep(context.WithoutCancel(ctx), time.Second)
	}
}

// Logger only logs with ctx: logging does not stop on cancellation.
type Logger struct{}

func (Logger) Run(ctx context.Context, wg *sync.WaitGroup) { // want `Run never observes ctx`
	defer wg.Done()
	for {
		slog.InfoContext(ctx, "tick")
		time.Sleep(time.Second)
	}
}

type AddInside struct{}

func (AddInside) Run(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1) // want `Run calls wg.Add inside the goroutine it counts`
	defer wg.Done()
	<-ctx.Done()
}

// Start adds and starts: a launcher, not a loop.
func Start(ctx context.Context, wg *sync.WaitGroup, r *Relay) {
	wg.Add(1)
	go r.Run(ctx, wg)
}

// StartAll hands the WaitGroup on.
func StartAll(ctx context.Context, wg *sync.WaitGroup, rs []*Relay) {
	for _, r := range rs {
		Start(ctx, wg, r)
	}
}

// Wait waits for the loops: not a loop either.
func Wait(ctx context.Context, wg *sync.WaitGroup) {
	<-ctx.Done()
	wg.Wait()
}

func Spawn(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() { // want `goroutine started after wg.Add never calls wg.Done\(\)`
		<-ctx.Done()
	}()
}

func SpawnGood(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
	}()
}

func SpawnSpin(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() { // want `goroutine counted by wg loops forever and never observes ctx`
		defer wg.Done()
		for {
			work()
		}
	}()
}

// SpawnChannel stops when jobs is closed, not by a context.
func SpawnChannel(wg *sync.WaitGroup, jobs <-chan int) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := range jobs {
			_ = j
		}
	}()
}

// SpawnLiteralLoop starts a Run-shaped literal.
func SpawnLiteralLoop(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func(ctx context.Context, wg *sync.WaitGroup) { // want `function literal never observes ctx`
		defer wg.Done()
		for {
			work()
		}
	}(ctx, wg)
}

// LocalWG: Done as the last statement of a goroutine with no return is
// reached on every path.
func LocalWG() {
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			work()
			wg.Done()
		}()
	}
	wg.Wait()
}

func LocalWGEarlyReturn(fail bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if fail {
			return
		}
		wg.Done() // want `wg.Done\(\) is not deferred and a path skips it`
	}()
	wg.Wait()
}

func AddLate() {
	var wg sync.WaitGroup
	go func() {
		defer wg.Done()
		wg.Add(1) // want `wg.Add inside the goroutine it counts`
	}()
	wg.Wait()
}

// AddFirst is go vet's waitgroup case: left to it, not reported twice.
func AddFirst() {
	var wg sync.WaitGroup
	go func() {
		wg.Add(1) // want `WaitGroup.Add called from inside new goroutine \[waitgroup\]`
		defer wg.Done()
	}()
	wg.Wait()
}

// TwoGoroutines: one observes the shared ctx, the other does not.
func TwoGoroutines(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			if !sleep(ctx, time.Second) {
				return
			}
		}
	}()
	go func() { // want `goroutine counted by wg loops forever and never observes ctx`
		defer wg.Done()
		for {
			slog.InfoContext(ctx, "tick")
		}
	}()
}
