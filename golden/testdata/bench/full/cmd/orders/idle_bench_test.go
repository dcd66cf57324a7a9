package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"example.com/orders/internal/benchtest"
)

const (
	// idleSettle is how long the service idles at least after "http server
	// listening" before its memory is read and SIGTERM sent: time for the
	// consumer to join its group, the relay and asynq to poll a few times.
	idleSettle = 3 * time.Second
	// idleJitter is added at random to idleSettle. The idle loops run on
	// fixed periods (the consumer's fetch long-polls, asynq's polls), and how
	// long each takes to stop depends on where in its period the signal lands:
	// a fixed wait would land it at the same place every time.
	idleJitter = time.Second
	// idlePatience bounds the start and the stop; nothing is timed against it.
	idlePatience = 30 * time.Second
)

// BenchmarkIdle runs the service as a real process, built with go build,
// against PostgreSQL, Redis and an in-process Kafka cluster. Each iteration
// starts it, waits until it listens, lets it idle, reads its memory, sends
// SIGTERM (no preStop: the signal comes at once) and waits for it to exit 0:
//
//	idle-RSS-MB     VmRSS from /proc/<pid>/status after idling
//	peak-RSS-MB     VmHWM, the most it held so far
//	shutdown-ms     SIGTERM to exit, seen from outside
//	stepN-...-ms    each shutdown step and each part of it, as the service
//	                logs them (e.g. step4-close-ms, step4-postgres-pool-ms)
func BenchmarkIdle(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "orders")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	dbURL, _ := benchtest.Postgres(b, "../../db/migrations")
	env := append(os.Environ(),
		"DATABASE_URL="+dbURL,
		"REDIS_ADDR="+benchtest.Redis(b),
		"REDIS_DB="+strconv.Itoa(benchtest.RedisDB),
		"KAFKA_BROKERS="+strings.Join(benchtest.Kafka(b, "events", 6), ","),
		"HTTP_ADDR=127.0.0.1:0",
	)

	var rssKB, peakKB int
	var shutdown time.Duration
	timings := map[string]time.Duration{}
	for b.Loop() {
		f := runIdle(b, bin, env)
		rssKB += f.rssKB
		peakKB += f.peakKB
		shutdown += f.shutdown
		for name, d := range f.timings {
			timings[name] += d
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(0, "ns/op") // an iteration is a start, an idle wait and a stop: not a figure
	b.ReportMetric(float64(rssKB)/1024/n, "idle-RSS-MB")
	b.ReportMetric(float64(peakKB)/1024/n, "peak-RSS-MB")
	b.ReportMetric(ms(shutdown), "shutdown-ms")
	for name, d := range timings {
		b.ReportMetric(ms(d), name+"-ms")
	}
}

// idleFigures is what one start-idle-stop cycle measured.
type idleFigures struct {
	rssKB, peakKB int
	shutdown      time.Duration
	timings       map[string]time.Duration // by stepN-name, from the shutdown log
}

// runIdle runs one cycle and fails b unless the service exits 0.
func runIdle(b *testing.B, bin string, env []string) idleFigures {
	b.Helper()
	// The log goes through a pipe of our own, not StderrPipe, so that Wait
	// (which would close StderrPipe) cannot cut off its last lines.
	logR, logW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer logR.Close()
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stderr = logW
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	logW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		select {
		case <-exited:
		default: // the benchmark failed half-way: leave no process behind
			cmd.Process.Kill()
			<-exited
		}
	}()

	var (
		mu        sync.Mutex
		lines     []map[string]any
		listening = make(chan struct{})
		logDone   = make(chan struct{})
	)
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(logR)
		for sc.Scan() {
			var l map[string]any
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				l = map[string]any{"msg": sc.Text()}
			}
			mu.Lock()
			lines = append(lines, l)
			mu.Unlock()
			if l["msg"] == "http server listening" {
				close(listening)
			}
		}
	}()
	log := func() string {
		mu.Lock()
		defer mu.Unlock()
		var sb strings.Builder
		for _, l := range lines {
			j, _ := json.Marshal(l)
			sb.Write(append(j, '\n'))
		}
		return sb.String()
	}

	select {
	case <-listening:
	case err := <-exited:
		exited <- err
		b.Fatalf("the service exited while starting (%v):\n%s", err, log())
	case <-time.After(idlePatience):
		b.Fatalf("the service did not listen within %v:\n%s", idlePatience, log())
	}
	time.Sleep(idleSettle + rand.N(idleJitter))
	var f idleFigures
	f.rssKB, f.peakKB = memoryKB(b, cmd.Process.Pid)

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-exited:
		f.shutdown = time.Since(start)
		exited <- err
		if err != nil {
			b.Fatalf("the service did not exit 0 after SIGTERM (%v):\n%s", err, log())
		}
	case <-time.After(idlePatience):
		b.Fatalf("the service did not exit within %v of SIGTERM:\n%s", idlePatience, log())
	}
	<-logDone
	f.timings = shutdownTimings(lines)
	return f
}

// shutdownTimings reads the shutdown log: each "shutdown step" line (step,
// name, took) and, before it, the lines of the parts of that step ("stopped",
// "drained", "closed" with part and took). It returns their durations keyed
// stepN-name, e.g. step2-stop-intake, step2-asynq, step4-postgres-pool.
func shutdownTimings(lines []map[string]any) map[string]time.Duration {
	out := map[string]time.Duration{}
	parts := map[string]time.Duration{} // of the step whose line comes next
	for _, l := range lines {
		took, err := time.ParseDuration(fmt.Sprint(l["took"]))
		if err != nil {
			continue
		}
		switch l["msg"] {
		case "stopped", "drained", "closed":
			parts[fmt.Sprint(l["part"])] = took
		case "shutdown step":
			step := fmt.Sprintf("step%v-", l["step"])
			out[step+metricName(fmt.Sprint(l["name"]))] = took
			for part, d := range parts {
				out[step+metricName(part)] = d
			}
			clear(parts)
		}
	}
	return out
}

// metricName makes a name fit a benchmark unit, which has no spaces.
func metricName(s string) string { return strings.ReplaceAll(s, " ", "-") }

// memoryKB reads VmRSS and VmHWM (kB) from /proc/<pid>/status.
func memoryKB(b *testing.B, pid int) (rss, peak int) {
	b.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		key, value, _ := strings.Cut(line, ":")
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		switch key {
		case "VmRSS":
			rss = kb
		case "VmHWM":
			peak = kb
		}
	}
	if rss == 0 {
		b.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, peak
}
