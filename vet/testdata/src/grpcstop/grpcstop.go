package grpcstop

import (
	"context"

	"google.golang.org/grpc"
)

func unbounded(s *grpc.Server) {
	s.GracefulStop() // want `GracefulStop waits for every RPC and open stream, with no deadline`
}

func thenStop(s *grpc.Server) {
	s.GracefulStop() // want `GracefulStop waits for every RPC and open stream, with no deadline`
	s.Stop()         // too late: GracefulStop has returned, or never does
}

func goroutineWithoutStop(s *grpc.Server, done chan struct{}) {
	go func() {
		s.GracefulStop() // want `GracefulStop in a goroutine, but goroutineWithoutStop never calls Stop`
		close(done)
	}()
	<-done
}

// bounded is the form gsgen generates: GracefulStop until ctx ends, then Stop.
func bounded(ctx context.Context, s *grpc.Server) error {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.GracefulStop()
	}()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		s.Stop()
		<-stopped
		return ctx.Err()
	}
}

func goStatement(ctx context.Context, s *grpc.Server) {
	go s.GracefulStop()
	<-ctx.Done()
	s.Stop()
}

func ignored(s *grpc.Server) {
	s.GracefulStop() //gsgen:ignore grpcstop -- every RPC here is unary and bounded by its own deadline
}
