#!/usr/bin/env bash
# Pacing (issue 2): a constant and a Poisson run at RATE req/s for DURATION
# s against the built-in mock (tiny outputs), as separate processes pinned
# to their own cores. Reports the achieved share of the planned arrivals,
# the scheduling-lag p50/p99, the client-limited flag and the client's CPU,
# from each run's run.json. Goal: >= 99 % of the target.
#
# Usage: bench/pacing.sh
# Env: RATE (1000), DURATION (30), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
RATE=${RATE:-1000}
DURATION=${DURATION:-30}
need_tools
build gollm-bench ./cmd/gollm-bench
GB=$BENCH_WORK/gollm-bench
W=$BENCH_WORK/pacing
mkdir -p "$W"
header_machine=$(machine)
PORT=18390
taskset -c "$SERVER_CPU" "$GB" mock-server --preset fast --output-tokens 4 --addr 127.0.0.1:$PORT >"$W/mock.log" 2>&1 &
PIDS+=($!)
wait_http http://127.0.0.1:$PORT/v1/models

rows=""
for mode in constant poisson; do
  log "pacing: $mode $RATE req/s for $DURATION s"
  taskset -c "$CLIENT_CPU" "$GB" run --target http://127.0.0.1:$PORT --profile "$mode" --rate "$RATE" \
    --max-seconds "$DURATION" --data prompt_tokens=8,output_tokens=4 --energy none --format json --quiet \
    --output-dir "$W/runs" --run-id "$mode" --overwrite >"$W/$mode.log" 2>&1 || true
  j="$W/runs/$mode/run.json"
  s='.result.levels[0].summary'
  ratio=$(jq -r "$s.client.achieved_ratio" "$j")
  rows+="| $mode | $RATE | $(fmt "$(jq -r "$s.client.target_req_s" "$j")" 1) | $(fmt "$(jq -r "$s.client.achieved_req_s" "$j")" 1) | $(fmt "$(echo "$ratio" | awk '{print $1*100}')" 2) % | $(fmt "$(jq -r "$s.scheduling_lag_ms.p50" "$j")" 3) | $(fmt "$(jq -r "$s.scheduling_lag_ms.p99" "$j")" 3) | $(jq -r "$s.client.client_limited" "$j") | $(fmt "$(jq -r "$s.client.cpu_percent" "$j")" 0) % |"$'\n'
  verdict=$(echo "$ratio" | awk '{print ($1 >= 0.99) ? "met" : "not met"}')
  rows+="<!-- $mode: $verdict -->"$'\n'
done
table="| mode | target req/s | planned in window, req/s | achieved req/s | achieved / planned | lag p50 ms | lag p99 ms | client-limited | client CPU |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |
$(echo "$rows" | grep '^|')"
echo "$table"
{
  echo
  echo "### Pacing run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Load average after: $(loadavg)."
  echo "- Mock (\`mock-server --preset fast --output-tokens 4\`: TTFT 20 ms, ITL 5 ms) on CPU $SERVER_CPU; gollm-bench on CPU $CLIENT_CPU."
  echo "- Command: \`RATE=$RATE DURATION=$DURATION bench/pacing.sh\`"
  echo
  echo "$table"
  echo
  echo "$rows" | sed -n 's/^<!-- \(.*\): \(.*\) -->$/- Goal: the \1 run reaches >= 99 % of its target: **\2**./p'
} >>"$DOC"
