// Package remote runs a trial's load away from the process that planned
// it: the bundle that carries a trial, the agent that runs it and its
// HTTP protocol, the Client that drives an agent from the controller, and
// the load pods that host agents on a cluster.
//
// A trial's load can leave from elsewhere — a pod, so that its network
// path is a cluster's — and its results come back exact: NewBundle
// packs what the trial needs (the spec's text, every file it names, the
// trial), an Agent runs it, and a Client drives the agent from here,
// making every request itself, so that nothing connects to the
// controller; through a Kubernetes API server's pod proxy
// (/api/v1/namespaces/NS/pods/NAME:PORT/proxy) as well as directly. An
// agent (latlab agent) answers:
//
//	GET  /healthz     200 "ok"
//	GET  /clock       200 and {"now_unix_nano": N}, the agent's wall clock, by
//	                  which a coordinator measures its offset (see shard.Offset)
//	POST /trial       a bundle, as JSON (see Bundle.MarshalJSON): 202 and the
//	                  trial's status; 400 naming what is wrong with the bundle,
//	                  413 past 64 MiB of files, 409 while another trial runs
//	GET  /trial       the status of the latest trial (AgentStatus, JSON):
//	                  state idle, warming, waiting (for start_at), measuring or
//	                  done, the load's live figures, the error of a failed trial
//	POST /trial/stop  stops the trial, which keeps what it measured, marked
//	                  interrupted: 202 and its status; 409 without a trial
//	GET  /result      once done, 200 and multipart/form-data: parts warmup and
//	                  measure, each a result's exact encoding (ResultMedia, see
//	                  record.EncodeResult) when there is one, a part points,
//	                  the trace points' exact encoding (PointsMedia: JSON,
//	                  versioned), when there are any, and a part error, text,
//	                  when the trial failed; 409 before, 404 without a trial
//	POST /exit        200, then the agent exits
//
// The agent writes the bundle's files into a folder of its own, parses the
// spec there as spec.ParseSpec does (but for its commands, which it never
// runs), builds the loads with Spec.WarmupFor and Spec.LoadFor, and removes the
// folder before the load starts. It runs one trial at a time, and never
// lingers: it exits after Agent.Idle without a request and after
// Agent.Lifetime whatever it does.
//
// An agent given Agent.OTLPHTTP or Agent.OTLPGRPC receives spans there,
// as latlab run does for a spec with traces: true, so that a cluster's
// nodes can export theirs to the load's pod. After the measured load of
// a trial whose spec asks for traces it waits for the last spans and
// sends back the hops of those that started during the load, timed from
// the measured result's Start; Run.Points holds them.
//
// RunInPod runs a bundle's trial in a load pod on a cluster, as latlab
// run does for a spec whose load is on one (AgentPod makes the pod): it
// starts the pod's Job, waits for it to be ready, drives its agent with a
// Client through the API server and deletes the Job whatever happens,
// naming the pod's failure (a *cluster.PodFailure) when it has one.
// Bundle.Loads builds a bundle's loads as an agent will, to check one
// before it is sent.
//
// An Agent answers requests concurrently and runs one trial at a time. A
// Client's methods only read its fields, so goroutines may share one. A
// Bundle is read-only once made.
package remote
