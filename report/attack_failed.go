package report

import (
	"fmt"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/units"
)

// failedWarning says when more than spec.DefaultMaxErrorRatio of the
// requests failed: which failure was the most common, an example, and what
// usually fixes it. It returns "" when the run is not past the bound.
func failedWarning(res *record.Result) string {
	failed := res.ErrorsTotal + res.Unsuccessful
	if res.Requests == 0 || float64(failed) <= spec.DefaultMaxErrorRatio*float64(res.Requests) {
		return ""
	}
	head := fmt.Sprintf("%d of the %d requests (%s) failed", failed, res.Requests, units.Percent(float64(failed)/float64(res.Requests), 1))
	if failed == res.Requests {
		head = fmt.Sprintf("all %d requests failed", failed)
	}
	head += ": the percentiles above time failures, not answers"
	// The most common failure: an error class, or a code that is not a
	// success.
	var top record.ErrorClass
	var topN int64
	for _, c := range record.ErrorClasses() {
		if n := res.Errors[c.String()]; n > topN {
			top, topN = c, n
		}
	}
	most := func(n int64) string {
		if n == failed {
			return fmt.Sprintf("All %d", n)
		}
		return fmt.Sprintf("Most (%d)", n)
	}
	if res.Unsuccessful > topN {
		return fmt.Sprintf("%s. %s got a status that is not a success (codes %s): check the URL, method and body, or give --success with the codes that are expected",
			head, most(res.Unsuccessful), codes(res.Codes))
	}
	ex := res.ErrorExample[top.String()]
	if ex != "" {
		ex = " (first: " + textsafe.Escape(ex) + ")"
	}
	return fmt.Sprintf("%s. %s are %s errors%s: %s", head, most(topN), top, ex, failedFix[top])
}

// failedFix is what usually cures each class of failure.
var failedFix = map[record.ErrorClass]string{
	record.Timeout:  "no answer came within --timeout; check that the target is up, or give a longer --timeout",
	record.Refused:  "nothing accepts connections at the target's address; check the URL's host and port and that the server is up",
	record.Reset:    "the target closed connections before answering; check its connection limits and its log",
	record.TLS:      "check the URL's scheme and port (https:// for a TLS server, http:// for a plain one); for a certificate the client does not trust, give --cacert FILE, or --insecure (-k) not to verify it",
	record.Protocol: "the answers are not HTTP as sent; check the URL's port and scheme (https:// for a TLS server, --h2c for a server that speaks only HTTP/2, neither --h2c nor --http2 for one that does not speak HTTP/2)",
	record.Other:    "the example says why",
}
