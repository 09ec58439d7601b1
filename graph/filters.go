package graph

import (
	"fmt"
	"net/http"

	"github.com/latlab/latlab/middleware"
)

// buildFilters makes the service's filter chain (Service.Filters, outermost
// first), each tracked under its Filter.Name so that its own latency is
// measured, with metrics in the node's registry: as HTTP filters and as
// gRPC interceptors, the two forms of one filter sharing its state (a fair
// queue's seats).
func (n *Node) buildFilters() (middleware.Filter, middleware.Interceptor, error) {
	if n.cfg.Service == nil || len(n.cfg.Service.Filters) == 0 {
		return middleware.Chain(), middleware.ChainRPC(), nil
	}
	m := middleware.NewMetrics(nil)
	if err := m.Register(n.reg); err != nil {
		return nil, middleware.Interceptor{}, fmt.Errorf("node %s: registering filter metrics: %w", n.cfg.Name, err)
	}
	var chain []middleware.Filter
	var rpcChain []middleware.Interceptor
	for _, f := range n.cfg.Service.Filters {
		var mf middleware.Filter
		var ic middleware.Interceptor
		switch f.Kind {
		case Passthrough:
			mf, ic = middleware.Passthrough(), middleware.PassthroughRPC()
		case Delay:
			d := f.Delay
			mf = middleware.Delay(d.User, d.Header, d.Duration, d.Methods...)
			ic = middleware.DelayRPC(d.User, d.Header, d.Duration, d.Methods...)
		case FairQueue:
			fq := f.FairQueue
			cfg := middleware.FairQueueConfig{
				Concurrency: fq.Concurrency, Queues: fq.Queues, HandSize: fq.HandSize,
				QueueLength: fq.QueueLength, Header: fq.Header,
			}
			for _, l := range fq.Levels {
				cfg.Levels = append(cfg.Levels, middleware.Level{Name: l.Name, Shares: l.Shares, Users: l.Users})
			}
			q, err := middleware.NewFairQueue(cfg, m)
			if err != nil {
				return nil, middleware.Interceptor{}, fmt.Errorf("node %s: filter %s (line %d): %w", n.cfg.Name, f.Name, f.Line, err)
			}
			mf, ic = q.Filter(), q.Interceptor()
		default:
			return nil, middleware.Interceptor{}, fmt.Errorf("node %s: filter %s (line %d): unknown kind %q", n.cfg.Name, f.Name, f.Line, f.Kind)
		}
		chain = append(chain, middleware.Track(f.Name, m, mf))
		rpcChain = append(rpcChain, middleware.TrackRPC(f.Name, m, ic))
	}
	return middleware.Chain(chain...), middleware.ChainRPC(rpcChain...), nil
}

// filterChain returns the decorator built by buildFilters.
func (n *Node) filterChain() func(http.Handler) http.Handler { return n.filters }
