package spec

import (
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/load"
)

// A Spec is a parsed experiment spec: what to run, how hard, how often and
// what to measure beside it. ParseSpec fills every default, so no field of
// a parsed Spec needs interpreting; a Spec is read-only once parsed.
//
// The spec tags name each field's YAML key; Canonical and Diff use them.
type Spec struct {
	File      string     `spec:"-"` // the file it was read from, for messages
	Dir       string     `spec:"-"` // its folder: relative paths in it resolve here
	Version   int        `spec:"version"`
	Name      string     `spec:"name"`
	Variants  []Variant  `spec:"variants"`
	Baseline  string     `spec:"baseline"` // a variant's name; default the first
	Load      Load       `spec:"load"`     // the load of every variant, before its overrides
	Warmup    *Warmup    `spec:"warmup"`   // nil means no warm-up
	Runs      int        `spec:"runs"`     // repetitions of each variant and rate; default 1; under Auto, its Max
	Auto      *AutoRuns  `spec:"runs"`     // runs: auto: each variant and rate repeated until its overheads are precise; nil: Runs times
	Order     Order      `spec:"order"`
	Seed      *int64     `spec:"seed"` // seed of the interleaved order; nil means the caller picks one
	Restart   Restart    `spec:"restart"`
	Sideloads []Sideload `spec:"sideloads"`
	Probes    Probes     `spec:"probes"`
	Validity  Validity   `spec:"validity"`
	SLO       SLO        `spec:"slo"`
	CPUs      CPUs       `spec:"cpus"`
	// Kubernetes is where variants and load on a cluster go; nil when
	// nothing of the spec runs on one.
	Kubernetes *Kubernetes `spec:"kubernetes"`
	// LoadPod, when set, runs each trial's load in a pod of the cluster
	// (load: {on: kubernetes}); nil runs it here.
	LoadPod *LoadPod `spec:"load_pod"`
	// Shards, when set, sends each trial's load from several generators
	// at once (load: {shards: N}); nil sends it from one.
	Shards *Shards `spec:"load_shards"`

	sums map[string]string // sha256 of each referenced file, by path as written
	src  []byte            // the spec as ParseSpec read it
	refs []FileRef         // the files it names, for a bundle
}

// Source returns the spec's text as ParseSpec read it; nil for a Spec it
// did not read. The caller must not change it.
func (s *Spec) Source() []byte { return s.src }

// Files returns the files the spec names, in the order it names them;
// the caller must not change them.
func (s *Spec) Files() []FileRef { return s.refs }

// FileSums returns the SHA-256 of each file the spec names, in hex, by
// its path as written; the caller must not change it.
func (s *Spec) FileSums() map[string]string { return s.sums }

// Path returns p, a path as written in the spec, resolved against the
// spec's folder.
func (s *Spec) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// Variant returns the variant called name, or nil.
func (s *Spec) Variant(name string) *Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// CPUs keeps the load generator and the targets apart, as CPU lists such
// as "0" or "2-3" (normalised; "" means not pinned). Load pins latlab
// itself, its load, probes and writer; Targets pins the graph nodes and the
// start, setup and teardown commands from their first instruction. With
// only Load given, the targets get the CPUs latlab may use but those.
type CPUs struct {
	Load    string `spec:"load"`
	Targets string `spec:"targets"`

	LoadLine, TargetsLine int // where each was written, for errors found at run time
}

// A Variant is one system under test: a synthetic graph that latlab starts
// and stops, or an external target. Exactly one of Graph and Target is
// set.
type Variant struct {
	Name         string          `spec:"name"`
	Graph        string          `spec:"graph"`     // topology file, as written; see Spec.Path
	Target       string          `spec:"target"`    // absolute http, https, grpc or grpcs URL
	Start        string          `spec:"start"`     // long-running command (sh -c) latlab starts in the spec's folder, stops at teardown, and takes down with it
	Setup        string          `spec:"setup"`     // shell command (sh -c) run in the spec's folder to set the variant up
	Teardown     string          `spec:"teardown"`  // shell command (sh -c) run in the spec's folder to tear it down
	Configure    string          `spec:"configure"` // shell command (sh -c) run in the spec's folder once the variant is ready, before its load: settings a server takes through its own API
	Ready        string          `spec:"ready"`     // URL that answers once the target is ready; "" means none
	ReadyTimeout time.Duration   `spec:"ready_timeout"`
	Load         Load            `spec:"load"` // the spec's load with this variant's overrides applied
	Overrides    []string        `spec:"-"`    // the load fields the variant gives, sorted
	Expect       []Percentile    `spec:"expect"`
	Topology     *graph.Topology `spec:"-"` // the parsed Graph, nil for a target
	// On is where a graph runs: "" here, OnKubernetes deployed to the
	// spec's cluster.
	On string `spec:"on"`
	// Kubernetes deploys a target variant to the cluster from manifests,
	// or names the namespace of a graph on it; nil for neither.
	Kubernetes *VariantKubernetes           `spec:"kubernetes"`
	Objects    []*unstructured.Unstructured `spec:"-"` // the parsed manifests
}

// OnKubernetes is a variant's On, and a load's, on a cluster.
const OnKubernetes = "kubernetes"

// InCluster reports whether v is deployed to a cluster.
func (v *Variant) InCluster() bool {
	return v.On == OnKubernetes || v.Kubernetes != nil && v.Kubernetes.Manifests != ""
}

// Kubernetes is where a spec's variants and load go on a cluster. Which
// cluster is not the spec's to say: latlab run's --kubeconfig and
// --context, $KUBECONFIG or ~/.kube/config, as kubectl finds it, so that a
// spec runs unchanged on kind, minikube and a cloud cluster.
type Kubernetes struct {
	// Namespace of what latlab deploys and of its load pods; "" means
	// the kubeconfig context's namespace, else "default".
	Namespace string `spec:"namespace"`
	// Image is a container image whose entry point is latlab, run by a
	// graph's pods and by load pods.
	Image string `spec:"image"`
}

// VariantKubernetes deploys a variant to the cluster.
type VariantKubernetes struct {
	Manifests string `spec:"manifests"` // a YAML or JSON file, or a folder of them, as written
	Namespace string `spec:"namespace"` // "" means the spec's
}

// LoadPod is where a trial's load runs on a cluster: an agent in a pod of
// Image, in Namespace, on a node NodeSelector and Tolerations allow, with
// Resources.
type LoadPod struct {
	Image        string            `spec:"image"`         // "" means the spec's kubernetes.image
	Namespace    string            `spec:"namespace"`     // "" means the spec's
	NodeSelector map[string]string `spec:"node_selector"` // labels a node must have to run a load pod
	Tolerations  []Toleration      `spec:"tolerations"`   // taints of the nodes a load pod may run on all the same
	Resources    PodResources      `spec:"resources"`     // of a load pod's container; none given means the namespace's defaults
}

// A Toleration lets a load pod run on a node of a matching taint, as a
// pod's toleration does in Kubernetes.
type Toleration struct {
	Key      string `spec:"key"`      // "" with operator Exists matches every taint
	Operator string `spec:"operator"` // Equal or Exists; "" means Equal
	Value    string `spec:"value"`    // with Equal
	Effect   string `spec:"effect"`   // NoSchedule, PreferNoSchedule or NoExecute; "" matches all
	// Seconds, with effect NoExecute, is how long the pod stays on a node
	// once it is tainted so; nil means for ever.
	Seconds *int64 `spec:"toleration_seconds"`
}

// PodResources are the CPU and memory a load pod's container requests of
// its node and is limited to, in Kubernetes quantities.
type PodResources struct {
	Requests Quantities `spec:"requests"`
	Limits   Quantities `spec:"limits"`
}

// Quantities are amounts of CPU and memory, such as "500m" and "256Mi";
// "" means none given.
type Quantities struct {
	CPU    string `spec:"cpu"`
	Memory string `spec:"memory"`
}

// Mode is the load model of a trial.
type Mode = load.Mode

// The load modes.
const (
	Open       = load.ModeOpen       // a constant (or Poisson) rate per trial, whatever the target does
	Closed     = load.ModeClosed     // a fixed number of workers per trial
	Ramp       = load.ModeRamp       // workers added in bursts up to the trial's concurrency
	Sequential = load.ModeSequential // one request at a time on one connection
)

// Load is how a trial loads its variant: load.Settings as a spec's load:
// gives them, with the levels the plan sweeps (Rates in open mode,
// Concurrency in closed and ramp modes). Requests come from Path, Method,
// Headers and Body (sent to the variant), or from a Targets or Scenario
// file whose URLs' scheme and host are replaced by the variant's. The spec
// tags of load.Settings name the YAML keys; the fields tagged "-" are left
// zero, and the seed of Poisson arrivals is the trial's place in the plan.
type Load load.Settings

// Settings returns l as the load package's Settings, for their builders.
func (l *Load) Settings() *load.Settings { return (*load.Settings)(l) }

// RampStep is how ramp mode steps up: Burst workers every Every.
type RampStep = load.RampStep

// Warmup is load sent before each trial and never recorded with it: for
// Duration, at Share of the trial's rate (or concurrency) or at Rate
// requests per second. Exactly one of Share and Rate is set; "same" is a
// Share of 1.
type Warmup struct {
	Duration time.Duration `spec:"duration"`
	Share    float64       `spec:"share,percent"`
	Rate     float64       `spec:"rate"`
}

// Order is the order of the trials in the plan.
type Order string

// The orders.
const (
	Interleaved Order = "interleaved" // each repetition runs every level in a seeded random order, a level's variants side by side in one
	Grouped     Order = "grouped"     // variant by variant, rate by rate, repetitions together
)

// Restart says when variants are set up again.
type Restart string

// The restart policies.
const (
	Never   Restart = "never"    // each variant is set up once and kept warm
	PerRun  Restart = "per-run"  // each trial sets its variant up and tears it down
	PerRate Restart = "per-rate" // a variant is set up again when its rate changes
)

// A Sideload is open-loop background load sent during every trial and not
// measured with it.
type Sideload struct {
	Target string  `spec:"target"`
	Rate   float64 `spec:"rate"`
}

// SLO is what a run must meet for latlab run to exit 0. The zero value asks
// for nothing.
type SLO struct {
	Latency []Percentile `spec:",inline"`        // highest latencies allowed, by increasing quantile; each one of Stats
	Errors  *float64     `spec:"errors,percent"` // highest error ratio allowed; nil means any
}

// Named returns s as reports judge it: each limit under the name of its
// Stat, so that p99.0 is p99 and p100 is max. A parsed spec limits no
// other quantile.
func (s SLO) Named() SLO {
	var out SLO
	if s.Errors != nil {
		e := *s.Errors
		out.Errors = &e
	}
	out.Latency = statNamed(s.Latency)
	return out
}

// Probes are the side measurements taken during each trial. A nil probe is
// off.
type Probes struct {
	Metrics    *Metrics    `spec:"metrics"`
	Prometheus *Prometheus `spec:"prometheus"`
	Process    *Process    `spec:"process"`
	Pprof      *Pprof      `spec:"pprof"`
	Traces     bool        `spec:"traces"` // receive the graph's spans over OTLP/HTTP
}

// Metrics scrapes Prometheus text endpoints every Interval and computes
// quantiles over Window from their histograms. A graph's nodes are scraped
// without being listed.
type Metrics struct {
	Interval time.Duration `spec:"interval"`
	Window   time.Duration `spec:"window"`
	URLs     []string      `spec:"urls"`
	// TokenFile and CACert, resolved against the spec's folder,
	// authenticate the scrapes of URLs, as an API server's /metrics asks:
	// a bearer token read from TokenFile, and the server's certificate
	// verified against CACert's roots. Both are read when the probe
	// starts, so a variant's start may write them.
	TokenFile string `spec:"token_file"`
	CACert    string `spec:"cacert"`
	// Families, when given, limits the scrapes of URLs to the metric
	// families of these names, and reads the gauges among them too.
	Families []string `spec:"families"`
}

// Prometheus runs range queries, by name, against a Prometheus server for
// each trial's window.
type Prometheus struct {
	URL     string            `spec:"url"`
	Step    time.Duration     `spec:"step"`
	Queries map[string]string `spec:"queries"`
}

// Process samples CPU and RSS of the target processes: a graph's nodes
// without being listed, others by PID or name.
type Process struct {
	CPUBudget float64  `spec:"cpu_budget,percent"` // the same as Validity.CPUBudget
	PIDs      []int    `spec:"pids"`
	Names     []string `spec:"names"`
}

// Pprof captures a CPU profile of Seconds and a heap profile from a
// target's /debug/pprof, starting At a share of the trial's duration.
type Pprof struct {
	At      float64 `spec:"at,percent"`
	Seconds int     `spec:"seconds"`
	URL     string  `spec:"url"` // base URL of /debug/pprof; "" means the variant's target or entry
}

// Validity holds the bounds a run is flagged against (see docs/commands/run.md).
// The defaults are those it states.
type Validity struct {
	MaxErrorRatio float64       `spec:"max_error_ratio,percent"` // errors: more errors than this
	MaxLagP99     time.Duration `spec:"max_lag_p99"`             // generator_saturated: p99 of lag above this
	MinAchieved   float64       `spec:"min_achieved,percent"`    // generator_saturated: achieved rate below this share of the target
	CPUBudget     float64       `spec:"cpu_budget,percent"`      // target_cpu_high: CPU above this share of the target's cores
	MaxTrend      float64       `spec:"max_trend,percent"`       // trend: a fitted rise above this share of the median
	// SamplesFor is the quantile too_few_samples asks enough requests
	// for: 10/(1−q). 0 stands for 0.99, the default (p99), so that specs
	// leaving it out keep their hash.
	SamplesFor float64 `spec:"samples_for"`
}

// SamplesQ returns the quantile too_few_samples judges: SamplesFor, or
// 0.99.
func (v Validity) SamplesQ() float64 {
	if v.SamplesFor == 0 {
		return defaultSamplesFor
	}
	return v.SamplesFor
}

// defaultSamplesFor is the quantile too_few_samples judges by default: p99.
const defaultSamplesFor = 0.99

// Defaults of the fields a spec may leave out; those of the load are the
// load package's.
const (
	DefaultDuration     = load.DefaultDuration
	DefaultTimeout      = load.DefaultTimeout
	DefaultInterval     = load.DefaultInterval
	DefaultReadyTimeout = 30 * time.Second
	DefaultStreams      = load.DefaultStreams
)

// DefaultValidity returns the bounds docs/commands/run.md states.
func DefaultValidity() Validity {
	return Validity{MaxErrorRatio: DefaultMaxErrorRatio, MaxLagP99: DefaultMaxLagP99,
		MinAchieved: DefaultMinAchieved, CPUBudget: DefaultCPUBudget, MaxTrend: DefaultMaxTrend}
}

// InCluster reports whether anything of the spec runs on a cluster.
func (s *Spec) InCluster() bool {
	if s.LoadPod != nil {
		return true
	}
	for i := range s.Variants {
		if s.Variants[i].InCluster() {
			return true
		}
	}
	return false
}
