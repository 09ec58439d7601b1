package graph

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// FromEnv sets c from the environment variables testapi's services
// take, read through getenv (os.Getenv): the node's contract with a
// deployment written for testapi.
//
//	SERVICE_NAME    the node's name
//	UPSTREAM_URI    where it listens: a URL or HOST:PORT (no host: 127.0.0.1)
//	DOWNSTREAM_URI  the base URLs it calls, comma-separated
//	REPORTER_URI    the Zipkin endpoint its spans go to
//	PRIME_MAX       the largest number its prime work may search up to, at least 2
//	JOBFILE         its job file
//	LOADFILE        its load file
//
// A variable not set leaves its field empty; one set wrong is an error
// naming it.
func (c *NodeConfig) FromEnv(getenv func(string) string) error {
	c.Name = getenv("SERVICE_NAME")
	if up := getenv("UPSTREAM_URI"); up != "" {
		host := up
		if u, err := url.Parse(up); err == nil && u.Host != "" {
			host = u.Host
		}
		if h, p, err := net.SplitHostPort(host); err != nil {
			return fmt.Errorf("UPSTREAM_URI %q: want a URL or HOST:PORT to listen on", up)
		} else if h == "" {
			host = net.JoinHostPort("127.0.0.1", p)
		}
		c.Listen = host
	}
	if down := getenv("DOWNSTREAM_URI"); down != "" {
		for _, d := range strings.Split(down, ",") {
			d = strings.TrimSpace(d)
			if err := CheckBaseURL(d); err != nil {
				return fmt.Errorf("DOWNSTREAM_URI: %v", err)
			}
			c.Downstreams = append(c.Downstreams, d)
		}
	}
	c.ZipkinEndpoint = getenv("REPORTER_URI")
	if pm := getenv("PRIME_MAX"); pm != "" {
		n, err := strconv.ParseInt(pm, 10, 64)
		if err != nil || n < 2 {
			return fmt.Errorf("PRIME_MAX %q: want a whole number of at least 2", pm)
		}
		c.PrimeMax = n
	}
	c.JobFile = getenv("JOBFILE")
	c.LoadFile = getenv("LOADFILE")
	return nil
}

// CheckBaseURL says whether s is an absolute http:// or https:// URL a
// node can call.
func CheckBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", s)
	}
	return nil
}
