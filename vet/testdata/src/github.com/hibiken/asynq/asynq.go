// Package asynq is a stub of github.com/hibiken/asynq v0.26.0 for the
// analyzer tests: the names and signatures the rules look at.
package asynq

import (
	"context"
	"time"
)

type RedisConnOpt interface{ MakeRedisClient() any }

type RedisClientOpt struct {
	Addr     string
	Password string
	DB       int
}

func (opt RedisClientOpt) MakeRedisClient() any { return nil }

type LogLevel int32

type Config struct {
	Concurrency       int
	TaskCheckInterval time.Duration
	Queues            map[string]int
	ShutdownTimeout   time.Duration
	LogLevel          LogLevel
}

type Server struct{}

func NewServer(r RedisConnOpt, cfg Config) *Server { return &Server{} }

func (srv *Server) Run(handler Handler) error   { return nil }
func (srv *Server) Start(handler Handler) error { return nil }
func (srv *Server) Shutdown()                   {}
func (srv *Server) Stop()                       {}
func (srv *Server) Ping() error                 { return nil }

type Task struct{}

func NewTask(typename string, payload []byte, opts ...Option) *Task { return &Task{} }

func (t *Task) Type() string    { return "" }
func (t *Task) Payload() []byte { return nil }

type Handler interface {
	ProcessTask(context.Context, *Task) error
}

type HandlerFunc func(context.Context, *Task) error

func (fn HandlerFunc) ProcessTask(ctx context.Context, task *Task) error { return fn(ctx, task) }

type ServeMux struct{}

func NewServeMux() *ServeMux { return &ServeMux{} }

func (mux *ServeMux) ProcessTask(ctx context.Context, task *Task) error { return nil }

func (mux *ServeMux) HandleFunc(pattern string, handler func(context.Context, *Task) error) {}

type Option interface{ String() string }

type option string

func (o option) String() string { return string(o) }

func Timeout(d time.Duration) Option { return option("Timeout") }
func MaxRetry(n int) Option          { return option("MaxRetry") }
func Queue(name string) Option       { return option("Queue") }

type TaskInfo struct{ ID string }

type Client struct{}

func NewClient(r RedisConnOpt) *Client { return &Client{} }

func (c *Client) Enqueue(task *Task, opts ...Option) (*TaskInfo, error) { return nil, nil }

func (c *Client) EnqueueContext(ctx context.Context, task *Task, opts ...Option) (*TaskInfo, error) {
	return nil, nil
}

func (c *Client) Close() error { return nil }
