// Package interrupt turns the signals that should end a run early into
// the cancellation of a context, with the signal as its cause, so that the
// run stops sending, keeps what it measured and marks it partial.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// names names the signals that end a run early with its partial
// results kept and marked (exit 4): Ctrl-C (SIGINT), SIGTERM (kill, docker
// stop, Kubernetes), SIGHUP (the terminal or the ssh session went away)
// and SIGQUIT (Ctrl-\).
func names() map[os.Signal]string {
	return map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT"}
}

// OnSignal returns a context cancelled by the first of the signals of
// names, with the signal, e.g. "SIGHUP (hangup)", as its cause. After that first signal
// the signals take their default action again, so that a second one ends a
// stuck process at once (a second SIGQUIT prints Go's goroutine dump),
// and SIGPIPE is ignored: a hangup often closes the pipe stdout or stderr
// went to (| tee), and a write there must fail, not kill the process
// before it has written its results. stop releases the signals.
func OnSignal(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	names := names()
	sigs := make(chan os.Signal, 1)
	for sig := range names {
		signal.Notify(sigs, sig)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			signal.Ignore(syscall.SIGPIPE)
			cancel(fmt.Errorf("%s (%v)", names[sig], sig))
		case <-done:
		}
	})
	return ctx, func() {
		close(done)
		wg.Wait()
		signal.Stop(sigs)
		cancel(nil)
	}
}

// Name is the name OnSignal gives sig in the context's cause, e.g.
// "SIGHUP", or "" for a signal it does not handle.
func Name(sig os.Signal) string { return names()[sig] }
