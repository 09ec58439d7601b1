package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/units"
	"github.com/latlab/latlab/yamlfile"
)

// flagError rewords what the flag parser reports: a bad value names the
// flag and says what it wants, an unknown flag of attack that another
// load generator has (wrk, wrk2, hey, ab, oha) names latlab's equivalent,
// and a mistyped long flag gets the one it likely meant.
// Every one is a usage error.
func flagError(cmd *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		f := bad.GetFlag()
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand
		}
		return usagef("%s %s: %s", name, bad.GetValue(), valueProblem(bad.Unwrap()))
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) {
		name := unknown.GetSpecifiedName()
		if hint := peerFlags[name]; hint != "" && cmd.Name() == "attack" {
			return usagef("%v; %s", err, hint)
		}
		if c := closestFlag(cmd, name); c != "" {
			return usagef("%v; did you mean --%s?", err, c)
		}
	}
	return usageError{err}
}

// closestFlag returns the long flag of cmd closest to name, a long flag
// mistyped, or "" when none is close enough (see yamlfile.Closest).
func closestFlag(cmd *cobra.Command, name string) string {
	if len(name) < 2 {
		return "" // a shorthand: one letter is no typo to guess from
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return yamlfile.Closest(name, names)
}

// valueProblem says in a user's words why a flag's value did not parse.
func valueProblem(err error) string {
	msg := err.Error()
	var num *strconv.NumError
	switch {
	case strings.Contains(msg, "time: missing unit in duration"):
		return "a duration needs a unit, e.g. 10s"
	case strings.HasPrefix(msg, "time: "):
		return "not a duration: give a number and a unit, e.g. 10s, 500ms or 2m"
	case errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange):
		return "out of range"
	case errors.As(err, &num) && num.Func == "ParseBool":
		return "want true or false"
	case errors.As(err, &num):
		return "not a number"
	}
	return msg
}

// peerFlags maps flags of other load generators, by the name typed
// (a shorthand's letter, or a long name), to latlab's way of saying it.
var peerFlags = map[string]string{
	"t":       "-t is wrk's thread count (ab's time limit): latlab chooses its threads, --threads sets them and --cpus pins them; for a time limit use -d, such as -d 10s",
	"z":       "-z is the duration in hey and oha: use -d, such as -d 10s",
	"q":       "-q is a rate (per worker in hey, in all in oha): use -r, the total rate, such as -r 100",
	"qps":     "--qps is a rate: use -r, the total rate, such as -r 100",
	"R":       "-R is wrk2's rate: use -r, such as -r 100",
	"T":       "-T is the content type in hey and ab: use -H 'Content-Type: application/json'",
	"D":       "-D is hey's body file: use --body-file",
	"p":       "-p is ab's body file: use --body-file with -m POST",
	"u":       "-u is ab's body file: use --body-file with -m PUT",
	"A":       "-A is basic authentication: use -H 'Authorization: Basic ...'",
	"C":       "-C is ab's cookie: use -H 'Cookie: name=value'",
	"i":       "-i is ab's HEAD request: use -m HEAD",
	"L":       "-L is wrk's latency distribution: latlab always prints it",
	"latency": "--latency is wrk's latency distribution: latlab always prints it",
}

// rateValue is a rate flag: requests per second, or per a period (see
// units.ParseRate), kept as the one level of a list of rates.
type rateValue struct{ v *[]float64 }

var _ pflag.Value = rateValue{}

func (r rateValue) String() string { return strconv.FormatFloat(level(*r.v), 'g', -1, 64) }
func (r rateValue) Type() string   { return "rate" }

func (r rateValue) Set(s string) error {
	v, err := units.ParseRate(s)
	if err != nil {
		return err
	}
	*r.v = []float64{v}
	return nil
}

// levelValue is an int flag kept as the one level of a list, such as -c
// in Settings.Concurrency.
type levelValue struct{ v *[]int }

var _ pflag.Value = levelValue{}

func (l levelValue) String() string { return strconv.Itoa(level(*l.v)) }
func (l levelValue) Type() string   { return "int" }

func (l levelValue) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	*l.v = []int{int(v)}
	return nil
}

// level returns the one level a flag gives, or 0 when it is not given.
func level[T any](levels []T) T {
	var zero T
	if len(levels) == 0 {
		return zero
	}
	return levels[0]
}
