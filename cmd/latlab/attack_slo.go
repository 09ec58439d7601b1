package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
)

// sloFlags are the flags of an SLO gate, --slo and --slo-strict, as
// attack and run take them.
type sloFlags struct {
	slo    string
	strict bool
}

// register adds the flags to fl; def says what judges when --slo is not
// given.
func (s *sloFlags) register(fl *pflag.FlagSet, def string) {
	fl.StringVar(&s.slo, "slo", "", "exit 1 when broken, such as 'p99<50ms,errors<1%'"+def)
	fl.BoolVar(&s.strict, "slo-strict", false, "judge the SLO on the values themselves, not their 95% CI's lower bound")
}

// parse returns the SLO to judge: --slo's when set (set to nothing, it
// asks for nothing), else def. Errors are usage errors naming the flag.
func (s *sloFlags) parse(set bool, def analysis.SLO) (analysis.SLO, error) {
	slo := def
	if set {
		var err error
		if slo, err = analysis.ParseSLO(s.slo); err != nil {
			return slo, usagef("--slo: %v", err)
		}
	}
	if s.strict && slo.IsZero() {
		return slo, usagef("--slo-strict: there is no SLO to judge; give one with --slo")
	}
	return slo, nil
}

// judge judges res against slo; nil when there is no SLO.
func (s *sloFlags) judge(res *record.Result, slo analysis.SLO) *analysis.AttackSLO {
	if slo.IsZero() {
		return nil
	}
	return analysis.JudgeAttack(res, slo, s.strict)
}

// attackVerdict ends an attack judged against an SLO: nil when it meets
// it, else an error naming the broken limits (exit code 1), with their
// rows on stderr when the verdict went to stdout inside JSON rather than
// as text.
func attackVerdict(v *analysis.AttackSLO, format string, stderr io.Writer) error {
	if v == nil || v.Met() {
		return nil
	}
	if format == "json" {
		_ = report.WriteAttackViolations(stderr, v)
	}
	return v.Err()
}
