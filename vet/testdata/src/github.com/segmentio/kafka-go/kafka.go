// Package kafka is a stub of github.com/segmentio/kafka-go v0.4.51 for the
// analyzer tests: the names and signatures the rules look at.
package kafka

import (
	"context"
	"net"
	"time"
)

type RequiredAcks int

const (
	RequireNone RequiredAcks = 0
	RequireOne  RequiredAcks = 1
	RequireAll  RequiredAcks = -1
)

type Header struct {
	Key   string
	Value []byte
}

type Message struct {
	Topic   string
	Key     []byte
	Value   []byte
	Headers []Header
	Offset  int64
}

type Balancer interface {
	Balance(msg Message, partitions ...int) (partition int)
}

type Hash struct{}

func (h *Hash) Balance(msg Message, partitions ...int) int { return 0 }

func TCP(address ...string) net.Addr { return nil }

type Writer struct {
	Addr                   net.Addr
	Topic                  string
	Balancer               Balancer
	MaxAttempts            int
	BatchSize              int
	BatchBytes             int64
	BatchTimeout           time.Duration
	ReadTimeout            time.Duration
	WriteTimeout           time.Duration
	RequiredAcks           RequiredAcks
	Async                  bool
	AllowAutoTopicCreation bool
}

func (w *Writer) WriteMessages(ctx context.Context, msgs ...Message) error { return nil }

func (w *Writer) Close() error { return nil }

type ReaderConfig struct {
	Brokers        []string
	GroupID        string
	Topic          string
	MaxWait        time.Duration
	CommitInterval time.Duration
}

type Reader struct{}

func NewReader(config ReaderConfig) *Reader { return &Reader{} }

func (r *Reader) FetchMessage(ctx context.Context) (Message, error) { return Message{}, nil }

func (r *Reader) ReadMessage(ctx context.Context) (Message, error) { return Message{}, nil }

func (r *Reader) CommitMessages(ctx context.Context, msgs ...Message) error { return nil }

func (r *Reader) Close() error { return nil }
