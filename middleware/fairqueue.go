package middleware

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Defaults a zero FairQueueConfig field stands for; they are those of
// kube-apiserver's API Priority and Fairness.
const (
	DefaultConcurrency = 600
	DefaultQueues      = 64
	DefaultHandSize    = 8
	DefaultQueueLength = 50
	DefaultRetryAfter  = time.Second
)

// FairQueueConfig configures a FairQueue. Its zero value is valid: one level
// named "default" with the defaults above.
type FairQueueConfig struct {
	// Concurrency is the number of seats — requests executing at once —
	// shared out among the levels; 0 means DefaultConcurrency.
	Concurrency int
	// Queues is the number of queues of each level; 0 means DefaultQueues.
	Queues int
	// HandSize is the number of queues each flow is dealt; 0 means
	// DefaultHandSize, or Queues if that is smaller. Queues choose HandSize
	// must need at most 60 bits of hash.
	HandSize int
	// QueueLength is the most requests one queue holds; 0 means
	// DefaultQueueLength.
	QueueLength int
	// Header names the request header that carries the user; "" means
	// DefaultUserHeader.
	Header string
	// Levels are the priority levels. A request goes to the level whose
	// Users name its user, else to the last level. Empty means one level
	// named "default".
	Levels []Level
	// RetryAfter is what a rejected request is told to wait, sent as whole
	// seconds (rounded up, at least 1) in Retry-After; 0 means
	// DefaultRetryAfter.
	RetryAfter time.Duration
}

// Level is a priority level: a share of the seats, with its own queues.
type Level struct {
	// Name labels the level's metrics; it must be unique and not empty.
	Name string
	// Shares weigh the level's seats: ceil(Concurrency × Shares / total
	// Shares), at least 1. 0 means 1.
	Shares int
	// Users are the users whose requests go to this level. A user may be
	// named by one level only.
	Users []string
}

// ConfigError is a FairQueueConfig field NewFairQueue refused.
type ConfigError struct {
	Field string // the field's path, like "HandSize" or "Levels[1].Users[0]"
	Msg   string
}

// Error returns "fair queue config: " then the field and the message.
func (e *ConfigError) Error() string { return "fair queue config: " + e.Field + ": " + e.Msg }

// FairQueue is an admission filter in the spirit of API Priority and
// Fairness. Each level has its own seats and queues; a flow is one user
// within a level, and is dealt a hand of HandSize of the level's queues by a
// deterministic hash of the user (shuffle sharding; see Hand). When all of a
// level's seats are taken, a request joins the shortest queue of its flow's
// hand. When a seat frees, the level serves its non-empty queues in round
// robin — one request from each in turn, not virtual-time fair queuing — so
// a heavy flow cannot starve a light flow that holds a queue of its own. A
// flow that fills several queues of its hand gets a turn in each. Within a
// queue, requests are served first in, first out.
//
// A request whose queue is full, or whose context ends while it is queued,
// is answered 429 Too Many Requests with a Retry-After header and never
// reaches the next handler; a queued request that is cancelled leaves its
// queue at once and takes no seat. A request that finds a free seat is
// observed as waiting 0.
//
// A FairQueue is safe for concurrent use; every handler its Filter builds
// shares its seats and queues.
type FairQueue struct {
	levels     []*level
	byUser     map[string]*level
	header     string
	retryAfter string
}

// NewFairQueue returns a FairQueue configured by cfg, recording into m (nil
// records nothing). cfg is copied. If cfg is invalid the error names every
// refused field, each as a *ConfigError.
func NewFairQueue(cfg FairQueueConfig, m *Metrics) (*FairQueue, error) {
	cfg = withDefaults(cfg)
	if err := validate(cfg); err != nil {
		return nil, err
	}
	total := 0
	for _, l := range cfg.Levels {
		total += shares(l)
	}
	q := &FairQueue{
		byUser:     make(map[string]*level),
		header:     headerKey(cfg.Header),
		retryAfter: strconv.FormatInt(int64(math.Ceil(max(cfg.RetryAfter.Seconds(), 1))), 10),
	}
	for _, l := range cfg.Levels {
		// Ceiling division: every level gets at least one seat.
		limit := max((cfg.Concurrency*shares(l)+total-1)/total, 1)
		lv := newLevel(l.Name, limit, cfg.Queues, cfg.HandSize, cfg.QueueLength, m)
		q.levels = append(q.levels, lv)
		for _, u := range l.Users {
			q.byUser[u] = lv
		}
	}
	return q, nil
}

// Filter returns the Filter that admits requests through q.
func (q *FairQueue) Filter() Filter {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user := userOf(r, q.header)
			l := q.route(user)
			if reason := l.acquire(r.Context(), user); reason != "" {
				w.Header().Set("Retry-After", q.retryAfter)
				http.Error(w, "too many requests: "+reason, http.StatusTooManyRequests)
				return
			}
			defer l.release()
			next.ServeHTTP(w, r)
		})
	}
}

// Hand returns the queues, numbered within its level, that user's flow is
// dealt, in the order they are dealt. It is deterministic: the same
// configuration deals the same hands in every process, so an experiment can
// check which flows may share a queue.
func (q *FairQueue) Hand(user string) []int {
	l := q.route(user)
	hand := make([]int, l.handSize)
	deal(flowHash(user), len(l.queues), hand)
	return hand
}

// route returns the level of user's requests.
func (q *FairQueue) route(user string) *level {
	if l, ok := q.byUser[user]; ok {
		return l
	}
	return q.levels[len(q.levels)-1]
}

func shares(l Level) int { return max(l.Shares, 1) }

// withDefaults returns cfg with every zero field replaced by its default.
func withDefaults(cfg FairQueueConfig) FairQueueConfig {
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Queues == 0 {
		cfg.Queues = DefaultQueues
	}
	if cfg.HandSize == 0 {
		cfg.HandSize = min(DefaultHandSize, max(cfg.Queues, 1))
	}
	if cfg.QueueLength == 0 {
		cfg.QueueLength = DefaultQueueLength
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	if len(cfg.Levels) == 0 {
		cfg.Levels = []Level{{Name: "default"}}
	}
	return cfg
}

// validate returns every problem of cfg, defaults applied, joined.
func validate(cfg FairQueueConfig) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Concurrency", cfg.Concurrency}, {"Queues", cfg.Queues}, {"HandSize", cfg.HandSize}, {"QueueLength", cfg.QueueLength}} {
		if f.v < 0 {
			bad(f.name, "%d is negative", f.v)
		}
	}
	switch {
	case cfg.Queues <= 0 || cfg.HandSize <= 0:
	case cfg.HandSize > cfg.Queues:
		bad("HandSize", "%d is more than Queues (%d)", cfg.HandSize, cfg.Queues)
	case handBits(cfg.Queues, cfg.HandSize) > maxHashBits:
		bad("HandSize", "hands of %d from %d queues need %.0f bits of hash, more than %d",
			cfg.HandSize, cfg.Queues, math.Ceil(handBits(cfg.Queues, cfg.HandSize)), maxHashBits)
	}
	if cfg.RetryAfter < 0 {
		bad("RetryAfter", "%v is negative", cfg.RetryAfter)
	}
	names := make(map[string]int)
	users := make(map[string]string)
	for i, l := range cfg.Levels {
		field := fmt.Sprintf("Levels[%d]", i)
		switch j, dup := names[l.Name]; {
		case l.Name == "":
			bad(field+".Name", "empty")
		case dup:
			bad(field+".Name", "%q is also the name of Levels[%d]", l.Name, j)
		default:
			names[l.Name] = i
		}
		if l.Shares < 0 {
			bad(field+".Shares", "%d is negative", l.Shares)
		}
		for j, u := range l.Users {
			uf := fmt.Sprintf("%s.Users[%d]", field, j)
			if prev, dup := users[u]; dup {
				bad(uf, "user %q is already in %s", u, prev)
				continue
			}
			users[u] = uf
		}
	}
	return errors.Join(errs...)
}
