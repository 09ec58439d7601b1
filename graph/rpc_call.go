package graph

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/dynamicpb"
)

// dialRPCPeers makes a client connection to every gRPC service the node
// calls, forwards to or proxies: one HTTP/2 connection each, as a gRPC
// client has, that carries every call at once. Connections are made at the
// first call and again whenever lost; a peer over https is called with TLS.
func (n *Node) dialRPCPeers() (map[string]*grpc.ClientConn, error) {
	if n.cfg.Topology == nil || n.cfg.Service == nil {
		return nil, nil
	}
	names := calledServices(n.cfg.Service.Script, append([]string(nil), n.cfg.Service.Calls...))
	if n.cfg.Service.Proxy != "" {
		names = append(names, n.cfg.Service.Proxy)
	}
	peers := map[string]*grpc.ClientConn{}
	for _, name := range names {
		s := n.cfg.Topology.Service(name)
		if s == nil || s.Protocol != GRPC || peers[name] != nil {
			continue
		}
		u, err := url.Parse(n.cfg.peerURL(name))
		if err != nil {
			return nil, fmt.Errorf("node %s: peer %s: %w", n.cfg.Name, name, err)
		}
		creds := insecure.NewCredentials()
		if u.Scheme == "https" {
			creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
		}
		host := u.Host
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), map[bool]string{true: "443", false: "80"}[u.Scheme == "https"])
		}
		cc, err := grpc.NewClient("passthrough:///"+host, grpc.WithTransportCredentials(creds),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(min(n.cfg.Caps.MaxBody, 1<<31-1)))),
			grpc.WithDisableRetry())
		if err != nil {
			for _, c := range peers {
				_ = c.Close()
			}
			return nil, fmt.Errorf("node %s: peer %s: %w", n.cfg.Name, name, err)
		}
		peers[name] = cc
	}
	return peers, nil
}

// callRPC calls Run on the gRPC service t over cc with a body of size
// bytes, passing on what call passes over HTTP as metadata, and echoes its
// reply's text into ex. It returns the status's name for the metrics.
func (n *Node) callRPC(ctx context.Context, ex *exchange, cc *grpc.ClientConn, size int64) (string, error) {
	h := make(map[string][]string, 2)
	n.passHeaders(h, ex.in)
	md := outgoingMD(h)
	if n.tr.on {
		n.tr.prop.Inject(ctx, mdCarrier(md))
	}
	reply := dynamicpb.NewMessage(nodeTypes.reply)
	err := cc.Invoke(metadata.NewOutgoingContext(ctx, md), RunMethod, newRequest(size), reply)
	code := rpcCodeLabel(status.Code(err))
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			return code, cause
		}
		return code, err
	}
	ex.addEcho([]byte(reply.Get(nodeTypes.text).String()))
	return code, nil
}
