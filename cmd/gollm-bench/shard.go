package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
)

// shardDirName is the folder of shard i inside OUTPUT-DIR/RUN-ID (SPEC §12).
func shardDirName(i int) string { return fmt.Sprintf("shard-%d", i) }

// parseShard reads --shard. Only `run` can be sharded: a sweep chooses its
// next level from the previous levels' measurements and verdicts (the
// throughput probe, the knee bisection), which no shard sees whole, so the
// shards' plans would diverge. A fixed grid is `run --profile
// constant|poisson|concurrent --rate R1,R2,...`.
func (b *bench) parseShard() error {
	if b.f.shard == "" {
		return nil
	}
	if b.sweep {
		return errors.New("--shard: only `gollm-bench run` can be sharded, since a sweep picks its levels from measurements no shard sees whole; run a fixed grid with `gollm-bench run --profile constant --rate R1,R2,... --shard I/N` and combine with `gollm-bench merge`")
	}
	s, err := loadgen.ParseShard(b.f.shard)
	if err != nil {
		return err
	}
	b.shard = s
	// Check every level now, so a shard that would get no worker fails
	// before it starts anything.
	var errs []error
	for _, p := range b.profiles() {
		if _, err := s.Share(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// createDir creates the run's results folder: OUTPUT-DIR/RUN-ID, or
// OUTPUT-DIR/RUN-ID/shard-I for a shard (the shards of one run share the
// run id, and each refuses a folder that exists unless --overwrite).
func (b *bench) createDir() (string, error) {
	f := &b.f
	if b.shard.IsZero() {
		dir, err := results.Create(f.outputDir, f.runID, f.overwrite)
		// A default run id (the start time, to the second) that is taken
		// was not the user's choice: take the next free suffix.
		for n := 2; errors.Is(err, results.ErrRunExists) && !f.changed["run-id"] && n < 100; n++ {
			id := fmt.Sprintf("%s-%d", strings.SplitN(f.runID, "-", 2)[0], n)
			if dir, err = results.Create(f.outputDir, id, false); err == nil {
				f.runID = id
			}
		}
		return dir, err
	}
	if err := results.ValidateRunID(f.runID); err != nil {
		return "", err
	}
	return results.Create(filepath.Join(f.outputDir, f.runID), shardDirName(b.shard.Index), f.overwrite)
}

// recordShard notes the shard in run.json.
func (b *bench) recordShard(run *results.Run) {
	if !b.shard.IsZero() {
		run.Config.Shard = b.shard.String()
	}
}

// shardSLOExit reports whether an SLO exit code is waived because this is
// a shard: a shard sees only its share of the load, and the verdict that
// counts is the merged one (`gollm-bench merge` exits 3 if it fails). So
// that a Kubernetes Job does not mark a healthy shard failed, a shard
// exits 0 and says so.
func (b *bench) shardSLOExit(code int) bool {
	if b.shard.IsZero() || code != exitSLO {
		return false
	}
	fmt.Fprintf(b.e.stderr, "shard %s: this shard's share missed the SLO; the verdict that counts is the merged one (gollm-bench merge)\n", b.shard)
	return true
}
