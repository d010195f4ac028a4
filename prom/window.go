package prom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Window reads the increase of counters over one window at a time: Begin
// at the window's start, End at its end, then Increase for each family.
// A Window can measure many windows one after another. Its methods must be
// called from one goroutine.
type Window interface {
	// Name is "prometheus" (QueryWindow) or "scrape" (ScrapeWindow).
	Name() string
	// Begin opens a window at the instant at.
	Begin(ctx context.Context, at time.Time) error
	// End closes the window at the instant at.
	End(ctx context.Context, at time.Time) error
	// Increase returns, for each series of family that matches every
	// matcher, its increase over the window closed by End. No matching
	// series gives an empty slice and no error.
	Increase(ctx context.Context, family string, matchers ...Matcher) ([]Series, error)
}

// Series is one series' increase over a window.
type Series struct {
	// Labels are the series' labels (without __name__).
	Labels map[string]string
	// Increase is how much the counter grew over the window, in the
	// counter's unit (J for Kepler, tokens for LiteLLM's token counters).
	Increase float64
	// Reset is true when the counter went backwards between the edges
	// (ScrapeWindow only; Prometheus corrects resets itself): Increase is then
	// the value at the end, a lower bound.
	Reset bool
}

// Sum returns the total increase of series.
func Sum(series []Series) float64 {
	t := 0.0
	for _, s := range series {
		t += s.Increase
	}
	return t
}

// Diff returns the increase of each series of family matching every
// matcher between two snapshots: after − before, matched by label set. A
// series absent from before started during the window: its increase is
// its value in after (counters start at 0; LiteLLM, for one, creates a
// series at its first request). A series whose value went down was reset
// (an exporter restart): its increase is its value in after, a lower
// bound, with Reset set. A series absent from after is not reported.
func Diff(before, after Snapshot, family string, matchers ...Matcher) []Series {
	prev := map[string]float64{}
	for _, x := range before.Samples(family, matchers...) {
		prev[key(x.Labels)] = x.Value
	}
	var out []Series
	for _, x := range after.Samples(family, matchers...) {
		s := Series{Labels: x.Labels, Increase: x.Value}
		if p, ok := prev[key(x.Labels)]; ok {
			if x.Value >= p {
				s.Increase = x.Value - p
			} else {
				s.Reset = true
			}
		}
		out = append(out, s)
	}
	return out
}

// QueryWindow is a Window over a Prometheus server's query API. Begin and
// End only note their instants; Increase asks the server, so it may be
// called long after the window (Prometheus keeps the samples). It is not
// safe for concurrent use.
type QueryWindow struct {
	api        *API
	start, end time.Time
}

// NewQueryWindow returns a Window that reads increases through api.
func NewQueryWindow(api *API) *QueryWindow { return &QueryWindow{api: api} }

// Name implements Window: "prometheus".
func (w *QueryWindow) Name() string { return "prometheus" }

// Begin implements Window: it notes the window's start.
func (w *QueryWindow) Begin(_ context.Context, at time.Time) error {
	w.start, w.end = at, time.Time{}
	return nil
}

// End implements Window: it notes the window's end.
func (w *QueryWindow) End(_ context.Context, at time.Time) error {
	if w.start.IsZero() {
		return errors.New("prom: End called without Begin")
	}
	w.end = at
	return nil
}

// Increase implements Window with one instant query, IncreaseQuery.
func (w *QueryWindow) Increase(ctx context.Context, family string, matchers ...Matcher) ([]Series, error) {
	if w.end.IsZero() {
		return nil, errors.New("prom: Increase called before End")
	}
	q, at, err := IncreaseQuery(family, matchers, w.start, w.end)
	if err != nil {
		return nil, err
	}
	res, err := w.api.Query(ctx, q, at)
	if err != nil {
		return nil, err
	}
	out := make([]Series, 0, len(res))
	for _, s := range res {
		out = append(out, Series{Labels: s.Labels, Increase: s.Value})
	}
	return out, nil
}

// IncreaseQuery returns the PromQL query that reads family's increase over
// [start, end], and the instant to evaluate it at:
//
//	increase(family{matchers}[Wms]) at end
//
// with end and start cut to whole milliseconds (the precision of the
// API's time parameter) and W = end − start in milliseconds, so that the
// query's range begins exactly at start and ends exactly at end. A window
// shorter than 1 ms is an error.
func IncreaseQuery(family string, matchers []Matcher, start, end time.Time) (query string, at time.Time, err error) {
	e, s := end.Truncate(time.Millisecond), start.Truncate(time.Millisecond)
	w := e.Sub(s).Milliseconds()
	if w < 1 {
		return "", time.Time{}, fmt.Errorf("prom: window %v to %v is shorter than 1 ms", start, end)
	}
	return fmt.Sprintf("increase(%s[%dms])", Selector(family, matchers...), w), e, nil
}

// ScrapeWindow is a Window that reads an exporter's /metrics page itself
// (Get) at Begin and End and subtracts (Diff). It is not safe for
// concurrent use.
type ScrapeWindow struct {
	url           string
	client        *http.Client
	before, after Snapshot
	began, ended  bool
}

// NewScrapeWindow returns a Window over the /metrics page at url (a URL
// without a path gets /metrics, MetricsURL). client nil means a private
// client with a DefaultTimeout timeout.
func NewScrapeWindow(url string, client *http.Client) *ScrapeWindow {
	return &ScrapeWindow{url: MetricsURL(url), client: orDefault(client)}
}

// Name implements Window: "scrape".
func (w *ScrapeWindow) Name() string { return "scrape" }

// URL returns the scraped URL.
func (w *ScrapeWindow) URL() string { return w.url }

// Begin implements Window: it scrapes the window's start.
func (w *ScrapeWindow) Begin(ctx context.Context, _ time.Time) error {
	snap, err := Get(ctx, w.client, w.url)
	if err != nil {
		return err
	}
	w.before, w.began, w.ended = snap, true, false
	return nil
}

// End implements Window: it scrapes the window's end.
func (w *ScrapeWindow) End(ctx context.Context, _ time.Time) error {
	if !w.began {
		return errors.New("prom: End called without Begin")
	}
	snap, err := Get(ctx, w.client, w.url)
	if err != nil {
		return err
	}
	w.after, w.ended = snap, true
	return nil
}

// Increase implements Window with Diff of the two scrapes.
func (w *ScrapeWindow) Increase(_ context.Context, family string, matchers ...Matcher) ([]Series, error) {
	if !w.ended {
		return nil, errors.New("prom: Increase called before End")
	}
	return Diff(w.before, w.after, family, matchers...), nil
}
