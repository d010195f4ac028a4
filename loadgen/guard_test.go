package loadgen

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestEmbedderPartsCannotCrash gives Run nil and panicking parts, as an
// embedder might: each must come back as an error from Run (or a failed
// record), never as a panic in one of the Generator's goroutines, which
// the caller could not recover and which would end the process.
func TestEmbedderPartsCannotCrash(t *testing.T) {
	okFake := func() Requester { return newFake(10 * time.Millisecond) }
	panicky := func(int64) (Request, error) { panic("workload boom") }
	tests := []struct {
		name      string
		requester func() Requester
		workload  Workload
		pacer     Pacer
		sink      Sink
		wantErr   string // "" wants no error
		wantStop  StopReason
	}{
		{name: "nil sink", requester: okFake, workload: okWorkload, sink: nil, wantErr: "no Sink"},
		{name: "nil requester", requester: func() Requester { return nil }, workload: okWorkload, sink: &MemorySink{}, wantErr: "no Requester"},
		{name: "nil workload", requester: okFake, workload: nil, sink: &MemorySink{}, wantErr: "no Workload"},
		{name: "panicking sink", requester: okFake, workload: okWorkload,
			sink: SinkFunc(func(*Record) error { panic("sink boom") }), wantErr: "panic in Sink: sink boom", wantStop: StopSinkError},
		{name: "nil SinkFunc", requester: okFake, workload: okWorkload, sink: SinkFunc(nil), wantErr: "panic in Sink", wantStop: StopSinkError},
		{name: "panicking workload", requester: okFake, workload: WorkloadFunc(panicky), sink: &MemorySink{},
			wantErr: "panic in Workload: workload boom", wantStop: StopWorkloadError},
		{name: "panicking pacer", requester: okFake, workload: okWorkload, sink: &MemorySink{},
			pacer: PacerFunc(func(i int64, prev time.Duration) time.Duration {
				if i == 3 {
					panic("pacer boom")
				}
				return prev + 100*time.Millisecond
			}), wantErr: "pacer loadgen.PacerFunc: panic in Arrival(3): pacer boom"},
		{name: "panicking requester", workload: okWorkload, sink: &MemorySink{},
			requester: func() Requester {
				return RequesterFunc(func(context.Context, Clock, *Request, *Record) { panic("requester boom") })
			}},
		{name: "nil RequesterFunc", workload: okWorkload, sink: &MemorySink{},
			requester: func() Requester { return RequesterFunc(nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newBubbled(tt.requester(), tt.workload, WithPacer(tt.pacer))
				res, err := g.Run(t.Context(), 0, Profile{Mode: ModeConstant, Rate: 10}, Limits{MaxRequests: 5}, tt.sink)
				if tt.wantErr == "" {
					if err != nil {
						t.Fatalf("Run: %v, want no error", err)
					}
					if res.Failed != 5 {
						t.Errorf("%d failed of %d scheduled, want every request failed, recorded", res.Failed, res.Scheduled)
					}
					recs := tt.sink.(*MemorySink).Records()
					if len(recs) != 5 || recs[0].ErrorKind != ErrorPanic || !strings.HasPrefix(recs[0].ErrorMessage, "panic: ") {
						t.Errorf("records %+v: want 5, each an ErrorPanic with the panic's message", recs)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Run: error %v, want one containing %q", err, tt.wantErr)
				}
				if res.StopReason != tt.wantStop {
					t.Errorf("StopReason %q, want %q", res.StopReason, tt.wantStop)
				}
			})
		})
	}
}
