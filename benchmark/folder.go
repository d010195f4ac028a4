package benchmark

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/results"
)

// parseShard reads --shard. Only `run` can be sharded: a sweep chooses its
// next level from the previous levels' measurements and verdicts (the
// throughput probe, the knee bisection), which no shard sees whole, so the
// shards' plans would diverge. A fixed grid is `run --profile
// constant|poisson|concurrent --rate R1,R2,...`.
func (b *Benchmark) parseShard() error {
	if b.s.Shard.IsZero() {
		return nil
	}
	if b.isSweep() {
		return errors.New("--shard: only `gollm-bench run` can be sharded, since a sweep picks its levels from measurements no shard sees whole; run a fixed grid with `gollm-bench run --profile constant --rate R1,R2,... --shard I/N` and combine with `gollm-bench merge`")
	}
	s := b.s.Shard
	if err := s.Validate(); err != nil {
		return fmt.Errorf("--shard: %w", err)
	}
	b.shard = s
	// Check every level now, so a shard that would get no worker fails
	// before it starts anything.
	var errs []error
	for _, p := range b.profiles() {
		if _, err := s.Share(p); err != nil {
			errs = append(errs, fmt.Errorf("--shard: %w", fieldname.Replace(err, b.profileFields(p)...)))
		}
	}
	return errors.Join(errs...)
}

// createDir creates the run's results folder: OUTPUT-DIR/RUN-ID, or
// OUTPUT-DIR/RUN-ID/shard-I for a shard (the shards of one run share the
// run id, and each refuses a folder that exists unless --overwrite).
func (b *Benchmark) createDir() (string, error) {
	dir, err := b.create()
	return dir, fieldname.Replace(err, folderNames...)
}

// create is createDir with results' own words in its errors.
func (b *Benchmark) create() (string, error) {
	s := &b.s
	if b.shard.IsZero() {
		dir, err := results.Create(s.OutputDir, s.RunID, s.Overwrite)
		// A default run id (the start time, to the second) that is taken
		// was not the user's choice: take the next free suffix.
		for n := 2; errors.Is(err, results.ErrRunExists) && b.defaultRunID && n < 100; n++ {
			id := fmt.Sprintf("%s-%d", strings.SplitN(s.RunID, "-", 2)[0], n)
			if dir, err = results.Create(s.OutputDir, id, false); err == nil {
				s.RunID = id
			}
		}
		return dir, err
	}
	if err := results.ValidateRunID(s.RunID); err != nil {
		return "", err
	}
	return results.Create(filepath.Join(s.OutputDir, s.RunID), results.ShardDir(b.shard.Index), s.Overwrite)
}
