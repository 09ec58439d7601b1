package experiment

import (
	"fmt"
	"slices"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/load"
)

// A CPUError says the spec's cpus cannot be applied on this machine: a
// CPU latlab may not use, or pinning refused. Nothing was run.
type CPUError struct{ Err error }

func (e *CPUError) Error() string { return e.Err.Error() }
func (e *CPUError) Unwrap() error { return e.Err }

// pin applies the spec's cpus: latlab itself goes to the load CPUs, and
// the variants' processes will start on the target CPUs, by default the
// CPUs latlab may use but the load's. It fails, before any load, when a
// CPU is not one this process may use.
func (r *Runner) pin() error {
	if err := r.pinCPUs(); err != nil {
		return &CPUError{err}
	}
	return nil
}

func (r *Runner) pinCPUs() error {
	c := r.Spec.CPUs
	if c.Load == "" && c.Targets == "" {
		return nil
	}
	allowed, err := load.AllowedCPUs()
	if err != nil {
		return fmt.Errorf("%s: cpus: %w", r.Spec.File, err)
	}
	list := func(field, s string, line int) ([]int, error) {
		if s == "" {
			return nil, nil
		}
		cpus, err := load.ParseCPUList(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: cpus.%s: %w", r.Spec.File, line, field, err)
		}
		for _, cpu := range cpus {
			if !slices.Contains(allowed, cpu) {
				return nil, fmt.Errorf("%s:%d: cpus.%s: CPU %d is not one latlab may use here (it may use %s)",
					r.Spec.File, line, field, cpu, load.FormatCPUList(allowed))
			}
		}
		return cpus, nil
	}
	loadCPUs, err := list("load", c.Load, c.LoadLine)
	if err != nil {
		return err
	}
	targets, err := list("targets", c.Targets, c.TargetsLine)
	if err != nil {
		return err
	}
	if targets == nil {
		targets = spec.CPUsBut(allowed, loadCPUs)
	}
	if loadCPUs != nil {
		if err := load.PinCPUs(loadCPUs); err != nil {
			return fmt.Errorf("%s: cpus.load: %w", r.Spec.File, err)
		}
	}
	r.targetCPUs = targets
	return nil
}
