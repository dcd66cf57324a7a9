package consumer

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// These tests run the consumer against an in-process Kafka (kfake) and, for
// the idempotency test, the real Postgres named by GSGEN_TEST_POSTGRES_URL.

const testTopic = "events"

// waitFor is generous on purpose: the machine may be slow, and the tests
// assert what happens, not how fast.
const waitFor = 60 * time.Second

func TestConsumerCommitsAndResumes(t *testing.T) {
	brokers := startKafka(t, 3)
	produce(t, brokers, messages("first", 20)...)

	h := newRecorder()
	_, stop := start(t, brokers, "resume", h)
	h.waitFor(t, 20)
	stop()
	if got := h.values(); !sameSet(got, values("first", 20)) {
		t.Fatalf("handler saw %v, want first-0..first-19 once each", got)
	}

	// A restarted member of the same group resumes after the committed
	// offsets: it gets the new message and none of the first twenty.
	produce(t, brokers, kafka.Message{Value: []byte("second")})
	h2 := newRecorder()
	_, stop2 := start(t, brokers, "resume", h2)
	h2.waitFor(t, 1)
	stop2()
	if got := h2.values(); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("restarted consumer saw %v, want only [second]", got)
	}
}

func TestConsumerFinishesMessageInHandOnShutdown(t *testing.T) {
	brokers := startKafka(t, 1)
	produce(t, brokers, kafka.Message{Value: []byte("in-hand")})

	h := &blockingHandler{started: make(chan struct{}), release: make(chan struct{}), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	c := New(testConfig(brokers, "in-hand"), h, testLogger(t))
	var wg sync.WaitGroup
	wg.Add(1)
	go c.Run(ctx, &wg)

	waitChan(t, h.started, "handler to start")
	cancel() // shutdown begins while the handler runs
	close(h.release)
	if err := <-h.done; err != nil {
		t.Fatalf("handler context ended with shutdown: %v", err)
	}
	wg.Wait()
	closeConsumer(t, c)

	// The message was committed: the next member does not see it again.
	produce(t, brokers, kafka.Message{Value: []byte("after")})
	h2 := newRecorder()
	_, stop := start(t, brokers, "in-hand", h2)
	h2.waitFor(t, 1)
	stop()
	if got := h2.values(); !slices.Equal(got, []string{"after"}) {
		t.Fatalf("restarted consumer saw %v, want only [after]", got)
	}
}

func TestConsumerRetriesFailedMessage(t *testing.T) {
	brokers := startKafka(t, 1)
	produce(t, brokers, messages("m", 2)...)

	// The first message fails twice; it is handled again, in place, before
	// the second.
	h := newRecorder()
	h.failures["m-0"] = 2
	_, stop := start(t, brokers, "retry", h)
	h.waitFor(t, 4)
	stop()
	if got, want := h.values(), []string{"m-0", "m-0", "m-0", "m-1"}; !slices.Equal(got, want) {
		t.Fatalf("handler calls %v, want %v", got, want)
	}
}

func TestHandlerIsIdempotentByEventID(t *testing.T) {
	pool := startPostgres(t)
	brokers := startKafka(t, 1)

	withID := func(id, value string) kafka.Message {
		return kafka.Message{Key: []byte("order-1"), Value: []byte(value), Headers: []kafka.Header{{Key: EventIDHeader, Value: []byte(id)}}}
	}
	// evt-1 arrives twice, as after a relay crash between publish and commit.
	produce(t, brokers, withID("evt-1", "a"), withID("evt-1", "a"), withID("evt-2", "b"))

	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	_, stop := start(t, brokers, "idempotent", NewOrderEventsHandler(pool, log))
	deadline := time.Now().Add(waitFor)
	for !strings.Contains(logs.String(), "event already processed") || countRows(t, pool) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("duplicate not skipped in time; logs:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()

	if n := strings.Count(logs.String(), "event already processed"); n != 1 {
		t.Errorf("skipped %d duplicates, want 1; logs:\n%s", n, logs.String())
	}
	if n := countRows(t, pool); n != 2 {
		t.Errorf("processed_event has %d rows, want 2 (evt-1, evt-2)", n)
	}
}

// start runs a consumer of group and returns a stop function that cancels it,
// waits for Run to return and closes it.
func start(t *testing.T, brokers []string, group string, h Handler) (*Consumer, func()) {
	t.Helper()
	c := New(testConfig(brokers, group), h, testLogger(t))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go c.Run(ctx, &wg)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			closeConsumer(t, c)
		})
	}
	t.Cleanup(stop)
	return c, stop
}

// closeConsumer checks that Close returns within its timeout.
func closeConsumer(t *testing.T, c *Consumer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

func testConfig(brokers []string, group string) Config {
	return Config{Name: "test", Brokers: brokers, Topic: testTopic, Group: group, HandlerTimeout: 10 * time.Second}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

func startKafka(t *testing.T, partitions int32) []string {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.SeedTopics(partitions, testTopic))
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(cluster.Close)
	return cluster.ListenAddrs()
}

func produce(t *testing.T, brokers []string, msgs ...kafka.Message) {
	t.Helper()
	w := &kafka.Writer{
		Addr:         kafka.TCP(brokers...),
		Topic:        testTopic,
		Balancer:     &kafka.Hash{},
		RequiredAcks: kafka.RequireAll,
		BatchTimeout: time.Millisecond,
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

func messages(prefix string, n int) []kafka.Message {
	out := make([]kafka.Message, n)
	for i, v := range values(prefix, n) {
		out[i] = kafka.Message{Key: []byte(v), Value: []byte(v)}
	}
	return out
}

func values(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

func sameSet(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

func waitChan(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitFor):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// recorder records every call, in order, and fails a value as often as
// failures says.
type recorder struct {
	mu       sync.Mutex
	calls    []string
	failures map[string]int
}

func newRecorder() *recorder { return &recorder{failures: map[string]int{}} }

func (r *recorder) Handle(_ context.Context, msg kafka.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := string(msg.Value)
	r.calls = append(r.calls, v)
	if r.failures[v] > 0 {
		r.failures[v]--
		return fmt.Errorf("test failure for %s", v)
	}
	return nil
}

func (r *recorder) values() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func (r *recorder) waitFor(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for len(r.values()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("handler saw %d messages, want %d", len(r.values()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// blockingHandler holds its message until released and reports whether its
// context was still alive when it finished.
type blockingHandler struct {
	started, release chan struct{}
	done             chan error
}

func (h *blockingHandler) Handle(ctx context.Context, _ kafka.Message) error {
	close(h.started)
	<-h.release
	h.done <- ctx.Err()
	return nil
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startPostgres connects to GSGEN_TEST_POSTGRES_URL in a schema of its own,
// applies db/migrations in order and drops the schema at the end. It skips the test
// when the server is unreachable, unless CI is set.
func startPostgres(t *testing.T) *pgxpool.Pool {
	t.Helper()
	url := os.Getenv("GSGEN_TEST_POSTGRES_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	admin, err := pgxpool.New(ctx, url)
	if err == nil {
		err = admin.Ping(ctx)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("postgres at %s: %v", url, err)
		}
		t.Skipf("postgres at %s unreachable (set GSGEN_TEST_POSTGRES_URL): %v", url, err)
	}
	t.Cleanup(admin.Close)

	schema := "test_" + strings.ToLower(rand.Text())
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	files, err := filepath.Glob("../../db/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	slices.Sort(files)
	for _, f := range files {
		sql, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Apply what goose runs on "up": the text before the Down section.
		up, _, _ := strings.Cut(string(sql), "-- +goose Down")
		if _, err := pool.Exec(ctx, up); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
	return pool
}

func countRows(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM processed_event WHERE consumer = 'order-events'").Scan(&n); err != nil {
		t.Fatalf("count processed_event: %v", err)
	}
	return n
}
