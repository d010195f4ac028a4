#!/usr/bin/env bash
# Client ceiling (issue 7, item 1.1; issue 19, item 6) and client-health
# wiring (item 2): gollm-bench against a single-process Python asyncio +
# aiohttp client (bench/asyncio_client.py) in two styles: "vllm", which
# behaves as `vllm bench serve`'s client (sleeps each Poisson gap without
# catching up, a new ClientSession per request), and "catchup", this
# bench's earlier stand-in (absolute arrival times, one shared session); on
# the same loopback server, Poisson arrivals, RATES req/s, DURATION s each,
# REPS times, the server pinned to SERVER_CPU and the client to CLIENT_CPU.
#
# The server is bench/sseserver (TTFT 20 ms, ITL 5 ms, 16 tokens): the mock
# (`gollm-bench mock-server`) tops out below 5,000 req/s on one core, so the
# script first measures both ceilings with wrk and prints them.
#
# Usage: bench/client-ceiling.sh
# Env: RATES ("100 500 1000 2000 5000"), DURATION (30), REPS (3),
#      PY_STYLES ("vllm catchup"),
#      OVERLOAD_RATES ("3000 4000 15000": gollm-bench alone, to find where it
#      saturates and show the client-limited flag firing), OVERLOAD_DURATION (15), WRK_SECONDS (10), SERVER_CPU (1),
#      CLIENT_CPU (0), BENCH_WORK (scratch folder), DOC.
source "$(dirname "$0")/lib.sh"

RATES=${RATES:-100 500 1000 2000 5000}
DURATION=${DURATION:-30}
REPS=${REPS:-3}
OVERLOAD_RATES=${OVERLOAD_RATES:-3000 4000 15000}
OVERLOAD_DURATION=${OVERLOAD_DURATION:-15}
WRK_SECONDS=${WRK_SECONDS:-10}
PY_STYLES=${PY_STYLES:-vllm catchup}
TTFT_MS=20
PY=/usr/bin/python3

need_tools
need_apt python3-aiohttp $PY -c 'import aiohttp'
need_apt wrk command -v wrk
build gollm-bench ./cmd/gollm-bench
build sseserver ./bench/sseserver
GB=$BENCH_WORK/gollm-bench
W=$BENCH_WORK/ceiling
mkdir -p "$W"
header_machine=$(machine)

# --- server ceilings (wrk: 1 thread, 1,000 connections, same body) ---
MOCK_PORT=18181 SSE_PORT=18190
taskset -c "$SERVER_CPU" "$GB" mock-server --preset fast --ttft ${TTFT_MS}ms --itl 5ms --output-tokens 16 --addr 127.0.0.1:$MOCK_PORT >"$W/mock.log" 2>&1 &
PIDS+=($!)
taskset -c "$SERVER_CPU" "$BENCH_WORK/sseserver" --addr 127.0.0.1:$SSE_PORT --ttft ${TTFT_MS}ms --itl 5ms --tokens 16 >"$W/sse.log" 2>&1 &
PIDS+=($!)
wait_http http://127.0.0.1:$MOCK_PORT/v1/models
wait_http http://127.0.0.1:$SSE_PORT/v1/models
wrk_rate() { # PORT -> req/s
  taskset -c "$CLIENT_CPU" wrk -t1 -c1000 -d"${WRK_SECONDS}s" -s "$REPO/bench/ceiling/post.lua" "http://127.0.0.1:$1/v1/completions" |
    awk '/Requests\/sec/ {print $2}'
}
: >"$W/wrk.tsv"
for rep in $(seq "$REPS"); do
  for s in mock:$MOCK_PORT sseserver:$SSE_PORT; do
    r=$(wrk_rate "${s#*:}")
    printf '%s\t%s\t%s\n' "${s%%:*}" "$r" "$(loadavg)" >>"$W/wrk.tsv"
    log "wrk ${s%%:*}: $r req/s"
  done
done
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true
mock_ceiling=$(awk '$1=="mock" {print $2}' "$W/wrk.tsv" | median)
sse_ceiling=$(awk '$1=="sseserver" {print $2}' "$W/wrk.tsv" | median)
TARGET=http://127.0.0.1:$SSE_PORT

# --- the runs ---
# rows.tsv: rep rate client achieved_req_s tokens lag_p50 lag_p99 cpu_pct ttft_p99 limited loadavg
# reason server_ttft_p99
: >"$W/rows.tsv"
# server_ttft: the served TTFT p99 since the previous call (bench/sseserver
# resets it on every GET /stats), ms.
server_ttft() { curl -sf -m 10 "$TARGET/stats" | jq '.ttft_p99_ms' 2>/dev/null || echo null; }
run_gollm() { # REP RATE SECONDS
  local id=g-$2-$1 dir=$W/runs
  server_ttft >/dev/null
  taskset -c "$CLIENT_CPU" "$GB" run --target "$TARGET" --model mock-model --profile poisson --rate "$2" \
    --max-seconds "$3" --drain-timeout 0 --data prompt_tokens=16,output_tokens=16 --energy none --format json --quiet \
    --output-dir "$dir" --run-id "$id" --overwrite >"$W/$id.log" 2>&1 || true
  local truth
  truth=$(server_ttft)
  [ -s "$dir/$id/run.json" ] || { log "$id: no run.json (see $W/$id.log)"; return; }
  local tokens
  tokens=$(jq -n '[inputs | select(.status == "ok") | .output_tokens] | add // 0' "$dir/$id/requests.jsonl")
  jq -r --arg rep "$1" --arg tokens "$tokens" --arg la "$(loadavg)" --arg truth "$truth" '.result.levels[0].summary |
    [$rep, .profile.rate, "gollm-bench", .client.achieved_req_s, ($tokens|tonumber), .scheduling_lag_ms.p50,
     .scheduling_lag_ms.p99, .client.cpu_percent, .ttft_ms.p99, .client.client_limited, $la,
     (.client.reason // ""), $truth] | @tsv' "$dir/$id/run.json" >>"$W/rows.tsv"
}
run_python() { # REP RATE SECONDS STYLE
  local id=p$4-$2-$1
  server_ttft >/dev/null
  taskset -c "$CLIENT_CPU" $PY "$REPO/bench/asyncio_client.py" --base-url "$TARGET" --rate "$2" --duration "$3" \
    --style "$4" --out "$W/$id.json" >"$W/$id.log" 2>&1 || true
  local truth
  truth=$(server_ttft)
  [ -s "$W/$id.json" ] || { log "$id: no summary (see $W/$id.log)"; return; }
  jq -r --arg rep "$1" --arg la "$(loadavg)" --arg truth "$truth" --arg c "python-$4" '[$rep, .target_req_s, $c, .achieved_req_s,
    .completed_output_tokens, .lag_p50_ms, .lag_p99_ms, .cpu_percent, .ttft_p99_ms, .client_limited, $la, "", $truth] | @tsv' \
    "$W/$id.json" >>"$W/rows.tsv"
}
for rep in $(seq "$REPS"); do
  for rate in $RATES; do
    log "rep $rep, $rate req/s: gollm-bench"; run_gollm "$rep" "$rate" "$DURATION"
    for st in $PY_STYLES; do
      log "rep $rep, $rate req/s: python asyncio, $st"; run_python "$rep" "$rate" "$DURATION" "$st"
    done
  done
done
for rate in $OVERLOAD_RATES; do
  log "overload $rate req/s: gollm-bench"; run_gollm 1 "$rate" "$OVERLOAD_DURATION"
done

# --- aggregate: medians over reps; token ratios per rep (same rate, back to back), then their median ---
col() { # RATE CLIENT COLUMN -> median
  awk -F'\t' -v r="$1" -v c="$2" -v k="$3" '$2==r && $3==c {print $k}' "$W/rows.tsv" | median
}
flags() { # RATE CLIENT -> "n/m"
  awk -F'\t' -v r="$1" -v c="$2" '$2==r && $3==c {m++; if ($10=="true") n++} END {printf "%d/%d", n, m}' "$W/rows.tsv"
}
ratio() { # RATE [CLIENT] -> median of gollm tokens / CLIENT's tokens over reps
  awk -F'\t' -v r="$1" -v c="${2:-python-vllm}" '$2==r && $3=="gollm-bench" {g[$1]=$5} $2==r && $3==c {p[$1]=$5}
    END {for (k in g) if (k in p) print (p[k] > 0 ? g[k]/p[k] : "inf")}' "$W/rows.tsv" | median
}
ttft_err() { # RATE CLIENT -> median over runs of the client's TTFT p99 - the server's
  awk -F'\t' -v r="$1" -v c="$2" '$2==r && $3==c && $9 != "" && $13 != "" && $13 != "null" {print $9 - $13}' "$W/rows.tsv" | median
}
CLIENTS="gollm-bench"
for st in $PY_STYLES; do CLIENTS="$CLIENTS python-$st"; done
la_range=$(awk -F'\t' '{split($11, a, " "); print a[1]}' "$W/rows.tsv" | sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {print lo "–" hi}')

table=$(
  echo "| target req/s | client | achieved req/s | completed output tokens | lag p50 (ms) | lag p99 (ms) | client CPU % | TTFT p99 (ms) | server's TTFT p99 (ms) | TTFT p99 error (ms) | client-limited (runs) | tokens gollm/this |"
  echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: |"
  for rate in $RATES; do
    for c in $CLIENTS; do
      r="-"; [ "$c" = gollm-bench ] || r="$(fmt "$(ratio "$rate" "$c")" 1)x"
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$rate" "$c" \
        "$(fmt "$(col "$rate" $c 4)" 0)" "$(fmt "$(col "$rate" $c 5)" 0)" "$(fmt "$(col "$rate" $c 6)" 3)" \
        "$(fmt "$(col "$rate" $c 7)" 3)" "$(fmt "$(col "$rate" $c 8)" 0)" "$(fmt "$(col "$rate" $c 9)" 1)" \
        "$(fmt "$(col "$rate" $c 13)" 1)" "$(fmt "$(ttft_err "$rate" $c)" 1)" "$(flags "$rate" $c)" "$r"
    done
  done
  for rate in $OVERLOAD_RATES; do
    c=gollm-bench
    printf '| %s (%s s, gollm-bench only) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | - |\n' "$rate" "$OVERLOAD_DURATION" $c \
      "$(fmt "$(col "$rate" $c 4)" 0)" "$(fmt "$(col "$rate" $c 5)" 0)" "$(fmt "$(col "$rate" $c 6)" 3)" \
      "$(fmt "$(col "$rate" $c 7)" 3)" "$(fmt "$(col "$rate" $c 8)" 0)" "$(fmt "$(col "$rate" $c 9)" 1)" \
      "$(fmt "$(col "$rate" $c 13)" 1)" "$(fmt "$(ttft_err "$rate" $c)" 1)" "$(flags "$rate" $c)"
  done
)

# --- verdicts ---
verdicts=$(
  # Goal 1: up to the server's ceiling, achieved >= 98 % and lag p99 <= 1 ms.
  kept="" failed=""
  for rate in $RATES; do
    awk -v r="$rate" -v c="$sse_ceiling" 'BEGIN {exit !(r < c)}' || continue
    lag=$(col "$rate" gollm-bench 7); ach=$(col "$rate" gollm-bench 4)
    if awk -v l="$lag" -v a="$ach" -v r="$rate" 'BEGIN {exit !(l <= 1 && a >= 0.98 * r)}'; then kept="$kept $rate"
    else failed="$failed $rate (lag p99 $(fmt "$lag" 2) ms = $(fmt "$(awk -v l="$lag" 'BEGIN {print l/1}')" 1)x the 1 ms goal, achieved $(fmt "$ach" 0) req/s)"; fi
  done
  if [ -z "$failed" ]; then echo "- Goal: gollm-bench keeps up to the server's ceiling ($(fmt "$sse_ceiling" 0) req/s, wrk) with lag p99 ≤ 1 ms: **met** at${kept} req/s."
  else echo "- Goal: gollm-bench keeps up to the server's ceiling ($(fmt "$sse_ceiling" 0) req/s, wrk) with lag p99 ≤ 1 ms: **not met** at${failed}; met at${kept:- none}."; fi
  # Goal 2: TTFT p99 within 2 ms of the server's served TTFT p99 at
  # 1,000 req/s (per run, then the median of the differences).
  d=$(awk -F'\t' '$2==1000 && $3=="gollm-bench" && $13 != "" {print $9 - $13}' "$W/rows.tsv" | median)
  if [ "$d" != "-" ]; then
    v="not met"; awk -v d="$d" 'BEGIN {exit !(d <= 2 && d >= -2)}' && v=met
    py=""
    for st in $PY_STYLES; do py="$py; the $st-style asyncio client is off by $(fmt "$(ttft_err 1000 python-$st)" 1) ms"; done
    echo "- Goal: at 1,000 req/s gollm-bench's TTFT p99 is within 2 ms of the truth (the server's served TTFT p99 in the same run): **$v** ($(fmt "$(col 1000 gollm-bench 9)" 2) ms against $(fmt "$(col 1000 gollm-bench 13)" 2) ms, median difference $(fmt "$d" 2) ms$py)."
  fi
  # Goal 3: where the asyncio client is client-limited, >= 10x its tokens.
  # Saturated: the median run achieved < 98 % of the target or had lag
  # p99 > 10 ms (the client-limited thresholds of docs/metrics.md, on
  # medians so that one noisy run does not decide).
  for st in $PY_STYLES; do
    pc=python-$st
    for rate in $RATES; do
      awk -v a="$(col "$rate" $pc 4)" -v l="$(col "$rate" $pc 7)" -v r="$rate" \
        'BEGIN {exit !(a < 0.98 * r || l > 10)}' || continue
      n=$(awk -F'\t' -v r="$rate" -v c=$pc '$2==r && $3==c && $10=="true"' "$W/rows.tsv" | wc -l)
      x=$(ratio "$rate" $pc)
      v="not met"; awk -v x="$x" 'BEGIN {exit !(x >= 10)}' && v=met
      echo "- Goal: where the $st-style asyncio client saturates, gollm-bench completes ≥ 10x its tokens — at $rate req/s: **$v** ($(fmt "$x" 1)x; it was flagged client-limited in $n of $REPS runs)."
    done
  done
  # Client-health wiring: the flag fires in overload runs and nowhere else.
  echo "- Client-health flag ([client health](metrics.md#client-health): achieved < 98 % of target or lag p99 > --max-lag, 10 ms): gollm-bench flagged $(awk -F'\t' '$3=="gollm-bench" && $10=="true"' "$W/rows.tsv" | wc -l) of $(awk -F'\t' '$3=="gollm-bench"' "$W/rows.tsv" | wc -l) runs (see the table's column; the reasons are listed below)."
)
reasons=$(awk -F'\t' '$3=="gollm-bench" && $10=="true" {printf "  - %s req/s, run %s: %s\n", $2, $1, $12}' "$W/rows.tsv")

out=$(
  echo
  echo "### Client ceiling run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Server: bench/sseserver pinned to CPU $SERVER_CPU (TTFT ${TTFT_MS} ms, ITL 5 ms, 16 tokens; the server's TTFT p99 column is what it served in the same run, from the end of the request to the first token's write, all requests); each client pinned to CPU $CLIENT_CPU, and all cut off what is in flight at the end of a run (gollm-bench with \`--drain-timeout 0\`, as the Python client does), so completed tokens compare like with like; Poisson, seed 42 (the same gaps for every client: the Python client replays loadgen.PoissonPacer), ${DURATION} s per run, $REPS runs per cell, medians shown; load average (1 min) during the runs: $la_range. Python styles: *vllm* sleeps each gap without catching up and opens a ClientSession per request, as vLLM's benchmark_serving.py and backend_request_func.py (v0.5-v0.6) do; *catchup* (the earlier stand-in) sleeps to each absolute arrival time and shares one session. TTFT p99 error = the client's TTFT p99 − the server's, per run, median."
  echo "- Server ceilings (wrk -t1 -c1000, ${WRK_SECONDS} s, median of $REPS): bench/sseserver **$(fmt "$sse_ceiling" 0) req/s**, the mock (\`mock-server --preset fast\`) $(fmt "$mock_ceiling" 0) req/s."
  echo "- Command: \`RATES=\"$RATES\" DURATION=$DURATION REPS=$REPS OVERLOAD_RATES=\"$OVERLOAD_RATES\" PY_STYLES=\"$PY_STYLES\" bench/client-ceiling.sh\`"
  echo
  echo "$table"
  echo
  echo "$verdicts"
  [ -z "$reasons" ] || { echo "- Reasons given by gollm-bench where it flagged itself:"; echo "$reasons"; }
)
echo "$out"
echo "$out" | doc_append
log "raw rows: $W/rows.tsv"
