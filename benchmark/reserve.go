package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// minLevelBytes is the least that one level is taken to add to run.json,
// bytes: about twice the 22–28 KB a short level was seen to add.
const minLevelBytes = 48 << 10

// levelContext returns ctx, cancelled also when growReserve stops the
// levels.
func (b *Benchmark) levelContext(ctx context.Context) context.Context {
	ctx, b.stopLevels = context.WithCancelCause(ctx)
	return ctx
}

// growReserve keeps the disk reserve (results.Reserve) as large as the
// run's outputs would be if it ended now: run.json grows with every level,
// so a reserve sized at the start no longer holds it after a few levels
// and a full disk would leave no run.json. The level just ended is taken
// to add twice its summary and timeline, encoded, or minLevelBytes,
// whichever is more. When the disk has no room for that, the levels stop
// there (a failed write, as when the records fill the disk), so that the
// results so far still fit, marked partial.
func (b *Benchmark) growReserve(ev sweep.Event) {
	if b.reserve == nil || b.reserveErr != nil || (ev.Outcome != nil && ev.Outcome.Partial) {
		return // a level cut short (a failed write, an interruption) ends the run anyway
	}
	add := int64(minLevelBytes)
	if ev.Outcome != nil {
		n := 0
		if data, err := json.Marshal(ev.Outcome); err == nil {
			n += len(data)
		}
		if lv := b.runner.Levels(); len(lv) > 0 {
			if data, err := json.Marshal(lv[len(lv)-1].Timeline); err == nil {
				n += len(data)
			}
		}
		add = max(add, 2*int64(n))
	}
	if b.runJSONBytes == 0 {
		b.runJSONBytes = b.reserve.Size()
	}
	b.runJSONBytes += add
	err := b.reserve.Grow(b.runJSONBytes)
	var we *results.WriteError
	if !errors.As(err, &we) {
		return
	}
	b.reserveErr = we
	fmt.Fprintf(b.opt.Log, "the disk has no room left to keep run.json writable (%v): stopping after level %d\n", we, ev.Index)
	if b.stopLevels != nil {
		b.stopLevels(we)
	}
}
