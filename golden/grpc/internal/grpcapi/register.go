package grpcapi

import "google.golang.org/grpc"

// Register registers your gRPC services on s. This file is yours: gsgen
// wrote it once and never touches it again. With the code protoc-gen-go-grpc
// generates from your .proto files it reads, for a Greeter service:
//
//	pb.RegisterGreeterServer(s, &greeter{deps: deps})
//
// The health service (grpc.health.v1) is registered beside yours already,
// and each call is timed on /metrics.
func Register(s grpc.ServiceRegistrar, deps Deps) {
	_, _ = s, deps // until your first service
}
