#!/usr/bin/env bash
# Timing truth (issue 7, item 1.2): gollm-bench's measured TTFT, ITL and
# chunk arrival times against the mock's ground-truth emit log, at 16, 64
# and 256 concurrent streams (bench/timingtruth). The mock runs in its own
# process on SERVER_CPU, the client on CLIENT_CPU; both stamp
# CLOCK_MONOTONIC, which the two processes share.
#
# Two server configurations:
#   stress: TTFT 20 ms, ITL 5 ms, 16 tokens (the client-ceiling stub's
#           timing): 256 streams are ~2,700 req/s and 51,000 tokens/s.
#   decode: TTFT 20 ms, ITL 20 ms, 128 tokens (a realistic batched decode
#           step): 256 streams are ~100 req/s and 12,800 tokens/s.
#
# Usage: bench/timing-truth.sh
# Env: STREAMS (16,64,256), REPS (3), STRESS_PER_STREAM (40),
#      DECODE_PER_STREAM (6) requests per stream per run, BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
STREAMS=${STREAMS:-16,64,256}
REPS=${REPS:-3}
STRESS_PER_STREAM=${STRESS_PER_STREAM:-40}
DECODE_PER_STREAM=${DECODE_PER_STREAM:-6}
need_tools
build timingtruth ./bench/timingtruth
TT=$BENCH_WORK/timingtruth
header_machine=$(machine)

# truth NAME PORT ITL OSL PER_STREAM: one configuration's table.
truth() {
  local name=$1 port=$2 itl=$3 osl=$4 per=$5
  taskset -c "$SERVER_CPU" "$TT" --serve "127.0.0.1:$port" --ttft 20ms --itl "$itl" >"$BENCH_WORK/truth-$name.log" 2>&1 &
  local spid=$!
  PIDS+=("$spid")
  wait_http "http://127.0.0.1:$port/v1/models"
  log "timing truth ($name): ITL $itl, $osl tokens, streams $STREAMS"
  taskset -c "$CLIENT_CPU" "$TT" --server "http://127.0.0.1:$port" --osl "$osl" \
    --streams "$STREAMS" --per-stream "$per" --reps "$REPS"
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
}
stress=$(truth stress 18395 5ms 16 "$STRESS_PER_STREAM")
decode=$(truth decode 18396 20ms 128 "$DECODE_PER_STREAM")
out=$(
  echo
  echo "### Timing truth run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Mock: \`timingtruth --serve\` (fixed scheduler, WithGroundTruth) on CPU $SERVER_CPU; client: openai.Client + loadgen.Generator, closed loop with N streams, on CPU $CLIENT_CPU; the two processes compare CLOCK_MONOTONIC stamps. Each stream's first request, which dials, is excluded. $REPS runs per row, median of the per-run p50 and p99 shown. TTFT error = client TTFT − (server flush of the first token − client wrote_at) = send overhead + the first chunk's delay; send overhead = wrote_at − sent_at (the client's); server pre-handler = handler entry − wrote_at (the server's, excluded from the error). Load average after: $(loadavg)."
  echo "- Command: \`STREAMS=$STREAMS REPS=$REPS STRESS_PER_STREAM=$STRESS_PER_STREAM DECODE_PER_STREAM=$DECODE_PER_STREAM bench/timing-truth.sh\`"
  echo
  echo "Stress: TTFT 20 ms, ITL 5 ms, 16 tokens, $STRESS_PER_STREAM requests per stream per run."
  echo
  echo "$stress"
  echo
  echo "Decode: TTFT 20 ms, ITL 20 ms, 128 tokens, $DECODE_PER_STREAM requests per stream per run."
  echo
  echo "$decode"
)
echo "$out"
echo "$out" | doc_append
