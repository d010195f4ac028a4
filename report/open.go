package report

import (
	"errors"
	"fmt"
	"os"

	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/results"
)

// OpenRun opens the run `gollm-bench report PATH` renders: a results
// folder or its run.json (results.Open, which returns the run and its
// folder). A file that is not a run.json but a peer tool's result (a
// vLLM, GuideLLM, AIPerf, GenAI-Perf or inference-perf file) is refused
// saying so and pointing to compare and pareto, which read peers. A
// folder with records but no run.json (a run killed before writing it) is
// re-rendered from its records (results.OpenOrRecover): recovered then
// says what was read. Other errors are results.OpenOrRecover's.
func OpenRun(path string) (run results.Run, dir string, recovered *results.Recovery, err error) {
	run, dir, recovered, err = results.OpenOrRecover(path)
	if err == nil || !errors.Is(err, results.ErrSchemaVersion) {
		return run, dir, recovered, err
	}
	if st, serr := os.Stat(path); serr != nil || !st.Mode().IsRegular() {
		return run, dir, nil, err
	}
	r, perr := peer.ReadFile(path)
	if perr != nil {
		return run, dir, nil, err
	}
	return run, dir, nil, fmt.Errorf("%s is a peer tool's result (%s, %s), not a gollm-bench run: report renders our runs; compare it with a run (gollm-bench compare %s RESULTS-DIR) or put it among scorecards (gollm-bench pareto, aggregate)", path, r.Tool, r.Layout, path)
}
