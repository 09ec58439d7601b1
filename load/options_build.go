package load

import (
	"fmt"

	"github.com/latlab/latlab/record"
)

// Model returns the load model of one level of s: rate requests per second
// in open mode, workers in closed and ramp modes.
func (s *Settings) Model(rate float64, workers int) (Model, error) {
	switch s.Mode {
	case ModeOpen, "":
		if !s.rateOK(rate) {
			return nil, fmt.Errorf("open mode needs a rate above 0, got %g", rate)
		}
		return Open{Pacer: s.Pacer(rate), MaxInFlight: s.MaxInFlight}, nil
	case ModeClosed, ModeRamp:
		if workers < 1 {
			return nil, fmt.Errorf("%s mode needs a concurrency of at least 1, got %d", s.Mode, workers)
		}
		if s.Mode == ModeClosed {
			return Closed{Workers: workers}, nil
		}
		if s.Ramp == nil {
			return nil, fmt.Errorf("ramp mode needs a burst and a period")
		}
		return Ramp{Workers: workers, Burst: s.Ramp.Burst, Every: s.Ramp.Every}, nil
	case ModeSequential:
		return Sequential{}, nil
	}
	return nil, fmt.Errorf("unknown mode %q", s.Mode)
}

// Pacer returns the open-loop schedule of rate under s: constant, or along
// s.Stages starting from rate, with Poisson arrivals seeded by s.Seed when
// s.Arrivals asks for them.
func (s *Settings) Pacer(rate float64) Pacer {
	var p Pacer = Constant{Rate: rate}
	if len(s.Stages) > 0 {
		p = Stages{Start: rate, Steps: s.Stages}
	}
	if s.Arrivals == PoissonArrivals {
		p = &Poisson{Of: p, Seed: s.Seed}
	}
	return p
}

// Transport returns the transport options of s. The error is one of
// reading s's TLS files.
func (s *Settings) Transport() (Options, error) {
	tls, err := s.TLSFiles().Config()
	if err != nil {
		return Options{}, err
	}
	return Options{
		Timeout:     s.Timeout,
		NoKeepAlive: s.NoKeepAlive,
		Connections: s.Connections,
		HTTP2:       s.HTTP2,
		H2C:         s.H2C,
		Streams:     s.Streams,
		UnixSocket:  s.UnixSocket,
		TLS:         tls,
		NetHTTP:     s.Client == NetHTTPClient,
		Proto:       s.Proto,
		ImportPaths: s.ImportPaths,
		ProtoFiles:  s.Inputs().Proto,
		Messages:    s.Messages,
		MessageGap:  s.MessageGap,
	}, nil
}

// Config returns the attack of s that sends src's requests under model m
// (see Model): s's transport, limits, success codes, warm-up and samples.
func (s *Settings) Config(src Source, m Model) (Config, error) {
	opts, err := s.Transport()
	if err != nil {
		return Config{}, err
	}
	success, err := s.codes()
	if err != nil {
		return Config{}, err
	}
	return Config{
		Source:    src,
		Model:     m,
		Transport: opts,
		Duration:  s.Duration,
		Count:     s.Requests,
		Warmup:    s.Warmup,
		Interval:  s.Interval,
		Success:   success,
		KeepRaw:   s.Samples,
		Pool:      s.Pool,
		Realtime:  s.Realtime,
		Threads:   s.Threads,
	}, nil
}

// codes returns the status codes s counts as success; nil means below 400.
func (s *Settings) codes() (*record.CodeSet, error) {
	if s.Success == "" {
		return nil, nil
	}
	set, err := record.ParseCodeSet(s.Success)
	if err != nil {
		return nil, err
	}
	return &set, nil
}
