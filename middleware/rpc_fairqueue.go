package middleware

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// retryAfterKey is the metadata key of the Retry-After a refused call gets.
const retryAfterKey = "retry-after"

// Interceptor returns the Interceptor that admits calls through q. It shares
// q's seats and queues with every Filter q builds, so HTTP requests and gRPC
// calls of one server compete for the same seats. The user is the first
// value of the incoming metadata key q's header names, lower-cased.
//
// A unary call holds a seat while its handler runs; a streaming call holds
// one for the whole stream, however long it stays open. A call refused — its
// queue full, or its context ended while queued — ends with status
// ResourceExhausted, "too many requests: " and the reason, and a
// "retry-after" header with q's RetryAfter in seconds; its handler is not
// called.
func (q *FairQueue) Interceptor() Interceptor {
	key := strings.ToLower(q.header)
	return Interceptor{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			l, reason := q.admit(ctx, key)
			if reason != "" {
				// An error here means headers are already out; the
				// status still says why.
				_ = grpc.SetHeader(ctx, q.retryHeader())
				return nil, refused(reason)
			}
			defer l.release()
			return handler(ctx, req)
		},
		Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			l, reason := q.admit(ss.Context(), key)
			if reason != "" {
				_ = ss.SetHeader(q.retryHeader())
				return refused(reason)
			}
			defer l.release()
			return handler(srv, ss)
		},
	}
}

// admit takes a seat for a call of the user in metadata key, as the Filter
// does for a request. It returns the seat's level, to be released, or else
// the reason the call was refused.
func (q *FairQueue) admit(ctx context.Context, key string) (*level, string) {
	user := userOfMetadata(ctx, key)
	l := q.route(user)
	if reason := l.acquire(ctx, user); reason != "" {
		return nil, reason
	}
	return l, ""
}

// retryHeader returns the header of a refused call. It is new each time, as
// a transport may keep the MD it is given.
func (q *FairQueue) retryHeader() metadata.MD {
	return metadata.Pairs(retryAfterKey, q.retryAfter)
}

// refused returns the status of a call refused for reason.
func refused(reason string) error {
	return status.Error(codes.ResourceExhausted, "too many requests: "+reason)
}
