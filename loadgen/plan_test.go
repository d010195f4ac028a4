package loadgen

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestFaultyPacerCannotHangLevel runs levels whose Pacer never reaches the
// level's end (issue 26's review): an offset that overflows the level's
// start, offsets that plateau or stay at 0, negative or decreasing ones.
// Before the fix each level spun or sent without end; now each returns,
// the faulty ones with an error that names the pacer and nothing sent.
func TestFaultyPacerCannotHangLevel(t *testing.T) {
	tests := []struct {
		name    string
		p       Profile
		lim     Limits
		pacer   PacerFunc
		wantErr string // "" wants no error
		wantOK  int64
	}{
		{name: "MaxInt64 after the first", p: Profile{Mode: ModeConstant, Rate: 5}, lim: Limits{MaxDuration: time.Second},
			pacer: func(i int64, _ time.Duration) time.Duration {
				if i == 0 {
					return 0
				}
				return math.MaxInt64
			}, wantOK: 1},
		{name: "plateau before the end", p: Profile{Mode: ModeConstant, Rate: 5}, lim: Limits{MaxDuration: time.Second},
			pacer: func(i int64, _ time.Duration) time.Duration {
				return time.Duration(min(i, 5)) * 100 * time.Millisecond
			}, wantErr: "pacer loadgen.PacerFunc: arrivals 10000 to 20000 all fall within 0s"},
		{name: "always 0 with a rate", p: Profile{Mode: ModeConstant, Rate: 5}, lim: Limits{MaxDuration: time.Second},
			pacer:   func(int64, time.Duration) time.Duration { return 0 },
			wantErr: "less than 1 µs apart on average"},
		{name: "negative", p: Profile{Mode: ModeConstant, Rate: 5}, lim: Limits{MaxDuration: time.Second},
			pacer:   func(i int64, _ time.Duration) time.Duration { return -time.Duration(i) * time.Millisecond },
			wantErr: "Arrival(1) = -1ms: a negative offset"},
		{name: "decreasing", p: Profile{Mode: ModeConstant, Rate: 5}, lim: Limits{MaxDuration: 2 * time.Second},
			pacer:   func(i int64, _ time.Duration) time.Duration { return time.Duration(20-i) * 50 * time.Millisecond },
			wantErr: "Arrival(1) = 950ms is before Arrival(0) = 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The clock started before the level, as a harness's does:
				// a level's Start > 0 is what Start + offset overflows from.
				g := newBubbled(newFake(10*time.Millisecond), okWorkload, WithPacer(tt.pacer),
					WithClock(NewClock(time.Now().Add(-time.Second))))
				sink := &MemorySink{}
				res, err := g.Run(t.Context(), 0, tt.p, tt.lim, sink)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("Run: error %v, want one containing %q", err, tt.wantErr)
					}
					if res.Sent != 0 {
						t.Errorf("%d sent, want none: the pacer is refused before the level starts", res.Sent)
					}
					return
				}
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.OK != tt.wantOK || res.StopReason != StopMaxDuration {
					t.Errorf("%d ok, stop %q; want %d, %q", res.OK, res.StopReason, tt.wantOK, StopMaxDuration)
				}
			})
		})
	}
}

// TestPacerPastHorizonWaitsForContext: a level bounded by MaxRequests whose
// Pacer has no more arrivals (math.MaxInt64, which start + offset would
// overflow into the past) sends its one arrival and ends when ctx does.
func TestPacerPastHorizonWaitsForContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer := PacerFunc(func(i int64, _ time.Duration) time.Duration {
			if i == 0 {
				return 0
			}
			return math.MaxInt64
		})
		g := newBubbled(newFake(10*time.Millisecond), okWorkload, WithPacer(pacer),
			WithClock(NewClock(time.Now().Add(-time.Second))))
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		res, err := g.Run(ctx, 0, Profile{Mode: ModeConstant, Rate: 5}, Limits{MaxRequests: 3}, &MemorySink{})
		if err == nil || !res.Interrupted {
			t.Fatalf("Run: %v, interrupted %v; want the ctx's deadline", err, res.Interrupted)
		}
		if res.Scheduled != 1 || res.OK != 1 {
			t.Errorf("%d scheduled, %d ok; want the plan's one arrival", res.Scheduled, res.OK)
		}
	})
}

// TestCheckPacerPassesRealPlans: the built-in pacers at MaxRate and a
// trace's burst of simultaneous arrivals are not refused.
func TestCheckPacerPassesRealPlans(t *testing.T) {
	burst := make([]time.Duration, 5000)
	for _, p := range []Pacer{ConstantPacer{Rate: MaxRate}, PoissonPacer{Rate: MaxRate, Seed: 1},
		GammaPacer{Rate: MaxRate, Shape: 0.2, Seed: 7}, SchedulePacer{Offsets: burst}} {
		if err := CheckPacer(t.Context(), p, Limits{MaxDuration: time.Second}); err != nil {
			t.Errorf("CheckPacer(%T): %v", p, err)
		}
	}
}
