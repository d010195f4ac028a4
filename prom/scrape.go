package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Snapshot is one /metrics scrape: every sample's value by metric family,
// as the Prometheus text format (0.0.4) names families. A Snapshot is
// immutable once parsed and safe for concurrent reads.
type Snapshot struct {
	families map[string][]Sample
}

// ParseText parses a /metrics body in the Prometheus text format. Counter,
// gauge and untyped samples are kept (histograms and summaries are not
// counters of this package's kind and are skipped). It is safe for
// concurrent use.
func ParseText(r io.Reader) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("metrics text: %w", err)
	}
	s := Snapshot{families: make(map[string][]Sample, len(fams))}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			var v float64
			switch {
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			default:
				continue
			}
			s.families[name] = append(s.families[name], Sample{Labels: labels(m), Value: v})
		}
	}
	return s, nil
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

// Has reports whether the snapshot holds the family.
func (s Snapshot) Has(family string) bool { return len(s.families[family]) > 0 }

// Samples returns the family's samples that match every matcher.
func (s Snapshot) Samples(family string, matchers ...Matcher) []Sample {
	var out []Sample
	for _, x := range s.families[family] {
		if matchAll(x.Labels, matchers) {
			out = append(out, x)
		}
	}
	return out
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

// Scrape is a Window that reads an exporter's /metrics at Begin and End.
// It is not safe for concurrent use.
type Scrape struct {
	url           string
	client        *http.Client
	before, after Snapshot
	began, ended  bool
}

// NewScrape returns a Window over the /metrics URL url (a URL without a
// path gets /metrics). client nil means a private client with a 10 s
// timeout.
func NewScrape(url string, client *http.Client) *Scrape {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if i := strings.Index(url, "://"); i >= 0 && !strings.Contains(url[i+3:], "/") {
		url += "/metrics"
	}
	return &Scrape{url: url, client: client}
}

// Name implements Window.
func (s *Scrape) Name() string { return "scrape" }

// URL returns the scraped URL.
func (s *Scrape) URL() string { return s.url }

// Begin implements Window: it scrapes the window's start.
func (s *Scrape) Begin(ctx context.Context, _ time.Time) error {
	snap, err := s.Read(ctx)
	if err != nil {
		return err
	}
	s.before, s.began, s.ended = snap, true, false
	return nil
}

// End implements Window: it scrapes the window's end.
func (s *Scrape) End(ctx context.Context, _ time.Time) error {
	if !s.began {
		return errors.New("prom: End called without Begin")
	}
	snap, err := s.Read(ctx)
	if err != nil {
		return err
	}
	s.after, s.ended = snap, true
	return nil
}

// Increase implements Window with Diff of the two scrapes.
func (s *Scrape) Increase(_ context.Context, family string, matchers ...Matcher) ([]Series, error) {
	if !s.ended {
		return nil, errors.New("prom: Increase called before End")
	}
	return Diff(s.before, s.after, family, matchers...), nil
}

// Read scrapes and parses the /metrics body now.
func (s *Scrape) Read(ctx context.Context) (Snapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return Snapshot{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := s.client.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Snapshot{}, fmt.Errorf("scraping %s: HTTP %d: %s", s.url, resp.StatusCode, b)
	}
	snap, err := ParseText(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", s.url, err)
	}
	return snap, nil
}
