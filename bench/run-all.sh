#!/usr/bin/env bash
# Runs every client-performance bench of issue 7 in order and appends their
# tables to docs/performance.md: micro-benchmarks, timing truth, memory,
# the soak (issue 25: RSS over a 2-minute level), then the client ceiling
# against a vllm-style asyncio client (which also shows the client-health
# flag). About 30 minutes with the defaults on a
# 2-core machine. Needs go, curl, taskset; installs jq, wrk and
# python3-aiohttp with apt-get when missing.
#
# Usage: bench/run-all.sh    (or: make bench)
# Env: each script's variables (REPS, DURATION, RATES, REQUESTS, ...), and
#      BENCH_WORK to keep the raw outputs (default: a fresh /tmp folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_WORK=${BENCH_WORK:-$(mktemp -d /tmp/gollm-bench-bench.XXXXXX)}
echo "raw outputs in $BENCH_WORK" >&2
start=$SECONDS
for s in micro pacing trace-replay timing-truth memory soak client-ceiling; do
  echo "== bench/$s.sh ($(( (SECONDS - start) / 60 )) min so far)" >&2
  bash "$here/$s.sh"
done
echo "== all benches done in $(( (SECONDS - start) / 60 )) min; tables appended to docs/performance.md" >&2
