package loadgen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Shard names one part of a distributed run: shard Index of Count
// (docs/cli.md#distributed-runs). Every shard runs the same seeded plan;
// shard i takes the requests whose index k in the whole plan has k % Count ==
// Index, so the shards never overlap and together send exactly what one
// process would.
//
// Open-loop modes (constant, poisson) compute the whole plan's arrival
// times with the same pacer and seed, and fire only the shard's arrivals,
// each at its planned time (rate / Count per shard). Closed-loop modes
// split the concurrency: shard i runs N/Count workers, the first N%Count
// shards one more; its j-th request is request k = j*Count + Index of the
// level. Limits.MaxRequests counts the whole plan's requests: a shard
// schedules its share of them.
//
// The zero Shard means "not sharded" and behaves as 0 of 1. A Shard is a
// plain value, safe to copy and to share between goroutines.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard parses a shard's "i/n" spelling (0 <= i < n), e.g. "2/8", as
// Kubernetes' Indexed Jobs number completions from 0.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || ierr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("shard %q: want INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/4 (in a Kubernetes Indexed Job: $(JOB_COMPLETION_INDEX)/4)", s)
	}
	sh := Shard{Index: i, Count: n}
	if n < 1 {
		return Shard{}, fmt.Errorf("shard %q: want INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/2", strings.TrimSpace(s))
	}
	if err := sh.Validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Validate reports a shard outside 0 <= Index < Count.
// The zero Shard is valid.
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/%d", s.Index, s.Count, max(s.Count, 2))
	}
	return nil
}

// IsZero reports whether s is the zero Shard (an unsharded run).
func (s Shard) IsZero() bool { return s == (Shard{}) }

// String spells s as the --shard flag does: "i/n" ("0/1" for the zero Shard).
func (s Shard) String() string {
	s = s.norm()
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// norm maps the zero Shard to 0 of 1.
func (s Shard) norm() Shard {
	if s.Count == 0 {
		return Shard{Index: 0, Count: 1}
	}
	return s
}

// Owns reports whether request k of a level's whole plan is this shard's.
func (s Shard) Owns(k int64) bool {
	s = s.norm()
	return k%int64(s.Count) == int64(s.Index)
}

// split returns shard s's part of total: total/Count, one more for the
// first total%Count shards.
func (s Shard) split(total int) int {
	s = s.norm()
	n := total / s.Count
	if s.Index < total%s.Count {
		n++
	}
	return n
}

// Share returns the part of profile p that shard s runs: for open-loop
// modes, Rate / Count and a MaxConcurrency cap split like concurrency; for
// closed-loop modes, the shard's workers (Concurrency for synchronous and
// concurrent, MaxConcurrency for throughput, whose default
// DefaultThroughputConcurrency is split too). Shard summaries carry the
// share, so that metrics.MergeSummaries adds the shares back up to p.
//
// The error names the shard and the Profile field when the shard would
// get no worker (Concurrency) or no slot (MaxConcurrency): use fewer
// shards or more load.
func (s Shard) Share(p Profile) (Profile, error) {
	if err := s.Validate(); err != nil {
		return p, err
	}
	s = s.norm()
	if s.Count == 1 {
		return p, nil
	}
	none := func(field string, total int) error {
		return fmt.Errorf("shard %s: %s %d split over %d shards leaves shard %d nothing to run; use a %s of at least %d, or at most %d shards",
			s, field, total, s.Count, s.Index, field, s.Count, max(total, 1))
	}
	q := p
	var errs []error
	switch p.Mode {
	case ModeConstant, ModePoisson:
		q.Rate = p.Rate / float64(s.Count)
		if p.MaxConcurrency > 0 {
			if q.MaxConcurrency = s.split(p.MaxConcurrency); q.MaxConcurrency == 0 {
				errs = append(errs, none("Profile.MaxConcurrency", p.MaxConcurrency))
			}
		}
	case ModeSynchronous:
		errs = append(errs, fmt.Errorf("shard %s: the synchronous profile runs one request at a time and cannot be split over %d shards; use Profile.Mode concurrent with a Profile.Concurrency N >= %d, or a rate mode (constant or poisson)", s, s.Count, s.Count))
	case ModeConcurrent:
		if q.Concurrency = s.split(p.Concurrency); q.Concurrency == 0 {
			errs = append(errs, none("Profile.Concurrency", p.Concurrency))
		}
	case ModeThroughput:
		total := p.MaxConcurrency
		if total <= 0 {
			total = DefaultThroughputConcurrency
		}
		if q.MaxConcurrency = s.split(total); q.MaxConcurrency == 0 {
			errs = append(errs, none("Profile.MaxConcurrency", total))
		}
	}
	return q, errors.Join(errs...)
}

// WithShard makes the Generator run shard index of count (see Shard and
// docs/cli.md#distributed-runs): every level follows the whole plan and sends
// only this shard's requests, with the Seq each would have in a
// single-process run. Run returns an error, naming the shard, if 0 <=
// index < count does not hold or a level cannot be split (Shard.Share).
func WithShard(index, count int) Option {
	return func(g *Generator) { g.shard, g.shardSet = Shard{Index: index, Count: count}, true }
}
