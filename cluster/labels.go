package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// The labels latlab puts on everything it creates.
const (
	LabelManagedBy  = "app.kubernetes.io/managed-by" // always ManagedBy
	LabelExperiment = "latlab.io/experiment"         // the experiment's name, as LabelValue makes it
	LabelVariant    = "latlab.io/variant"            // the variant's name, as LabelValue makes it
	LabelRole       = "latlab.io/role"               // RoleVariant or RoleLoad
	ManagedBy       = "latlab"
)

// The roles of what latlab creates.
const (
	RoleVariant = "variant" // a variant's objects
	RoleLoad    = "load"    // a load generator's Job and pod
)

// Labels returns the labels of a variant's objects in experiment.
func Labels(experiment, variant string) map[string]string {
	return map[string]string{
		LabelManagedBy:  ManagedBy,
		LabelExperiment: LabelValue(experiment),
		LabelVariant:    LabelValue(variant),
		LabelRole:       RoleVariant,
	}
}

// Selector returns the label selector of what latlab made for experiment,
// or of everything latlab made when experiment is "".
func Selector(experiment string) string {
	s := LabelManagedBy + "=" + ManagedBy
	if experiment != "" {
		s += "," + LabelExperiment + "=" + LabelValue(experiment)
	}
	return s
}

var labelBad = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// LabelValue returns s as a valid label value: at most 63 characters of
// letters, digits, '-', '_' and '.', beginning and ending with a letter or
// digit. A name that had to change keeps a short hash of the original, so
// two names never map to one value.
func LabelValue(s string) string {
	v := strings.Trim(labelBad.ReplaceAllString(s, "-"), "-_.")
	if v == s && len(v) <= 63 {
		return v
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:4])
	if len(v) > 54 {
		v = strings.TrimRight(v[:54], "-_.")
	}
	if v == "" {
		return h
	}
	return v + "-" + h
}
