package loadgen

import "testing"

// TestQueueKeepsOnlyWaiting: a MaxConcurrency queue that never empties
// (arrivals faster than the cap lets through, all through a long level)
// holds the arrivals still waiting, not every one it ever queued (issue
// 25 item 13: the queue was emptied only when it drained, so a level
// that stayed over its cap grew 24 bytes per arrival).
func TestQueueKeepsOnlyWaiting(t *testing.T) {
	var l level
	const waiting = 100
	for k := range int64(waiting) {
		l.queue = append(l.queue, slot{k: k})
	}
	next := int64(0)
	for k := int64(waiting); k < 1_000_000; k++ {
		l.queue = append(l.queue, slot{k: k}) // one arrives...
		s, ok := l.dequeue()                  // ...one leaves
		if !ok || s.k != next {
			t.Fatalf("dequeued %+v (ok %v), want arrival %d: first in, first out", s, ok, next)
		}
		next++
	}
	if got := len(l.queue) - l.head; got != waiting {
		t.Fatalf("%d arrivals waiting, want %d", got, waiting)
	}
	if c := cap(l.queue); c > 4096 {
		t.Errorf("the queue holds room for %d arrivals after a million passed through with %d waiting; want it bounded by what waits", c, waiting)
	}
	for range waiting {
		if _, ok := l.dequeue(); !ok {
			t.Fatal("queue emptied early")
		}
	}
	if _, ok := l.dequeue(); ok || len(l.queue) != 0 {
		t.Errorf("queue not empty: %d left", len(l.queue)-l.head)
	}
}
