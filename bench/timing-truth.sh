#!/usr/bin/env bash
# Timing truth (issue 7, item 1.2): gollm-bench's measured TTFT, ITL and
# chunk arrival times against the mock's ground-truth emit log, at 16, 64
# and 256 concurrent streams (bench/timingtruth; client and mock in one
# process, which the ground truth needs).
#
# Usage: bench/timing-truth.sh
# Env: STREAMS (16,64,256), PER_STREAM (40 requests per stream per run),
#      REPS (3), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
STREAMS=${STREAMS:-16,64,256}
PER_STREAM=${PER_STREAM:-40}
REPS=${REPS:-3}
build timingtruth ./bench/timingtruth
header_machine=$(machine)
table=$("$BENCH_WORK/timingtruth" --streams "$STREAMS" --per-stream "$PER_STREAM" --reps "$REPS")
out=$(
  echo
  echo "### Timing truth run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Mock: fixed scheduler, TTFT 20 ms, ITL 5 ms, 16 tokens, WithGroundTruth; client: openai.Client + loadgen.Generator, closed loop with N streams, $PER_STREAM requests per stream per run (each stream's first request, which dials, excluded); both in one process on both CPUs; $REPS runs per row, median of the per-run p50 and p99 shown. Load average after: $(loadavg)."
  echo "- Command: \`STREAMS=$STREAMS PER_STREAM=$PER_STREAM REPS=$REPS bench/timing-truth.sh\`"
  echo
  echo "$table"
)
echo "$out"
echo "$out" | doc_append
