#!/usr/bin/env bash
# Timing truth (issue 7, item 1.2; issue 19): gollm-bench's measured TTFT, ITL
# and chunk arrival times against the mock's ground-truth emit log, at 16,
# 64 and 256 concurrent streams (bench/timingtruth). The mock runs in its own
# process on SERVER_CPU, the client on CLIENT_CPU; both stamp
# CLOCK_MONOTONIC, which the two processes share. Each table gives the
# errors of the kernel receive clock and of the user-space clock, taken
# from the same records, and the receive queueing between them.
#
# Configurations:
#   stress:  TTFT 20 ms, ITL 5 ms, 16 tokens (the client-ceiling stub's
#            timing): 256 streams are ~2,700 req/s and 51,000 tokens/s.
#   decode:  TTFT 20 ms, ITL 20 ms, 128 tokens (a realistic batched decode
#            step): 256 streams are ~100 req/s and 12,800 tokens/s.
#   starved: decode, with a busy loop pinned on the client's CPU, which the
#            client then gets about half of.
#   tls:     decode, the mock served over TLS (self-signed, not verified).
#
# Usage: bench/timing-truth.sh
# Env: STREAMS (16,64,256), REPS (3), STRESS_PER_STREAM (40),
#      DECODE_PER_STREAM (6) requests per stream per run, CONFIGS
#      ("stress decode starved tls"), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
STREAMS=${STREAMS:-16,64,256}
REPS=${REPS:-3}
STRESS_PER_STREAM=${STRESS_PER_STREAM:-40}
DECODE_PER_STREAM=${DECODE_PER_STREAM:-6}
CONFIGS=${CONFIGS:-stress decode starved tls}
need_tools
build timingtruth ./bench/timingtruth
TT=$BENCH_WORK/timingtruth
header_machine=$(machine)

# truth NAME PORT ITL OSL PER_STREAM [--tls] [--starve]: one configuration's table.
truth() {
  local name=$1 port=$2 itl=$3 osl=$4 per=$5 tls="" starve="" scheme=http
  shift 5
  for a in "$@"; do
    case $a in --tls) tls=--tls scheme=https ;; --starve) starve=1 ;; esac
  done
  taskset -c "$SERVER_CPU" "$TT" --serve "127.0.0.1:$port" --ttft 20ms --itl "$itl" $tls >"$BENCH_WORK/truth-$name.log" 2>&1 &
  local spid=$! hog=""
  PIDS+=("$spid")
  wait_http_k "$scheme://127.0.0.1:$port/v1/models"
  if [ -n "$starve" ]; then
    taskset -c "$CLIENT_CPU" awk 'BEGIN { while (1) {} }' &
    hog=$!
    PIDS+=("$hog")
  fi
  log "timing truth ($name): ITL $itl, $osl tokens, streams $STREAMS${tls:+, TLS}${starve:+, client starved}"
  taskset -c "$CLIENT_CPU" "$TT" --server "$scheme://127.0.0.1:$port" --osl "$osl" \
    --streams "$STREAMS" --per-stream "$per" --reps "$REPS" $tls
  [ -z "$hog" ] || { kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; }
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
}

# wait_http_k URL: wait_http, accepting the mock's self-signed certificate.
wait_http_k() {
  local i
  for i in $(seq 100); do
    curl -skf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  log "no answer from $1"; return 1
}

describe() {
  case $1 in
    stress) echo "Stress: TTFT 20 ms, ITL 5 ms, 16 tokens, $STRESS_PER_STREAM requests per stream per run." ;;
    decode) echo "Decode: TTFT 20 ms, ITL 20 ms, 128 tokens, $DECODE_PER_STREAM requests per stream per run." ;;
    starved) echo "Starved: the decode configuration with a busy loop (\`awk 'BEGIN { while (1) {} }'\`) pinned on the client's CPU $CLIENT_CPU for the whole run." ;;
    tls) echo "TLS: the decode configuration, the mock served over TLS (\`--tls\`: a self-signed certificate, not verified by the client); the kernel stamps are those of the reads under the TLS layer." ;;
  esac
}

declare -A table
for c in $CONFIGS; do
  case $c in
    stress) table[$c]=$(truth stress 18395 5ms 16 "$STRESS_PER_STREAM") ;;
    decode) table[$c]=$(truth decode 18396 20ms 128 "$DECODE_PER_STREAM") ;;
    starved) table[$c]=$(truth starved 18397 20ms 128 "$DECODE_PER_STREAM" --starve) ;;
    tls) table[$c]=$(truth tls 18398 20ms 128 "$DECODE_PER_STREAM" --tls) ;;
  esac
done
out=$(
  echo
  echo "### Timing truth run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Mock: \`timingtruth --serve\` (fixed scheduler, WithGroundTruth) on CPU $SERVER_CPU; client: openai.Client + loadgen.Generator, closed loop with N streams, on CPU $CLIENT_CPU; the two processes compare CLOCK_MONOTONIC stamps. Each stream's first request, which dials, is excluded. $REPS runs per row, median of the per-run p50 and p99 shown. Each record carries both clocks: the *kernel* row uses the kernel's receive stamps (chunk_times), the *user* row the user-space stamps of the same chunks (chunk_user_times). The mock's connections have kernel receive stamps: the true TTFT = server flush of the first token − the server kernel's receive stamp of the request's last byte, which owes nothing to the client's stamps. TTFT error = client TTFT − true TTFT, the client's TTFT starting at wire_at (its kernel's transmit stamp of the request's last byte) on the kernel clock and at sent_at on the user clock: the first chunk's delay + the request's transit, + the send overhead on the user clock; chunk delay = client stamp − server flush (negative when the kernel received the bytes before the server's write call returned); receive queueing = user − kernel stamp, every token chunk; send overhead = wrote_at − sent_at (the client's cost, in the user clock's TTFT only); request transit = server kernel receive − client wire_at, the request's last byte. Load average after: $(loadavg)."
  echo "- Command: \`STREAMS=$STREAMS REPS=$REPS STRESS_PER_STREAM=$STRESS_PER_STREAM DECODE_PER_STREAM=$DECODE_PER_STREAM CONFIGS=\"$CONFIGS\" bench/timing-truth.sh\`"
  for c in $CONFIGS; do
    echo
    describe "$c"
    echo
    echo "${table[$c]}"
  done
)
echo "$out"
echo "$out" | doc_append
