package main

// The worker binary exits 0 after SIGTERM and after SIGINT, once asynq has
// drained. The test runs this test binary as the worker (see TestMain)
// against the Redis of GSGEN_TEST_REDIS_ADDR (default 127.0.0.1:6379), on
// database 14: an idle worker would take any task queued in the database it
// watches, so it must not share one with the tasks package's tests (13).

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("GSGEN_TEST_RUN_WORKER") == "1" {
		os.Exit(run(os.Getenv, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestWorkerExitsCleanlyOnSignal(t *testing.T) {
	addr := os.Getenv("GSGEN_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	if conn, err := net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s is unreachable: %v", addr, err)
		}
		t.Skipf("Redis at %s is unreachable (%v): start redis-server or set GSGEN_TEST_REDIS_ADDR", addr, err)
	} else {
		conn.Close()
	}

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "GSGEN_TEST_RUN_WORKER=1", "REDIS_ADDR="+addr, "REDIS_DB=14")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Read stderr in the background so a hung worker fails the test
			// instead of blocking it.
			lines := make(chan string)
			go func() {
				defer close(lines)
				for sc := bufio.NewScanner(stderr); sc.Scan(); {
					lines <- sc.Text()
				}
			}()
			var log strings.Builder
			// readUntil collects lines until one contains marker ("" reads to the end).
			readUntil := func(marker string) bool {
				timeout := time.After(15 * time.Second)
				for {
					select {
					case line, ok := <-lines:
						if !ok {
							return marker == ""
						}
						log.WriteString(line + "\n")
						if marker != "" && strings.Contains(line, marker) {
							return true
						}
					case <-timeout:
						cmd.Process.Kill()
						return false
					}
				}
			}
			// asynq's Run logs this just before it installs its signal handler.
			if !readUntil("Send signal TERM or INT") {
				cmd.Wait()
				t.Fatalf("the worker did not start:\n%s", log.String())
			}
			time.Sleep(200 * time.Millisecond) // let Run install its handler
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if !readUntil("") {
				cmd.Wait()
				t.Fatalf("the worker did not exit within 15s of %v:\n%s", sig, log.String())
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("the worker exited with %v, want exit status 0:\n%s", err, log.String())
			}
			var msgs []string
			for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
				var rec struct{ Msg, Part string }
				if json.Unmarshal([]byte(line), &rec) == nil && (rec.Part != "" || rec.Msg == "shutdown complete") {
					msgs = append(msgs, strings.TrimSpace(rec.Msg+" "+rec.Part))
				}
			}
			if got, want := strings.Join(msgs, ", "), "drained asynq, shutdown complete"; got != want {
				t.Errorf("shutdown log: got %q, want %q:\n%s", got, want, log.String())
			}
		})
	}
}
