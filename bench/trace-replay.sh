#!/usr/bin/env bash
# Trace replay lag (issue 17): each 200-line sample trace under
# testdata/traces/ (Mooncake, Azure, BurstGPT) replayed at 1x and 10x
# against the built-in mock, with every prompt synthesised to the trace's
# exact length in the Qwen3 fixture tokenizer. The mock runs in its own
# process on SERVER_CPU, the client on CLIENT_CPU, as in the other client
# benches. Each cell runs REPS times; the table gives the median of the
# per-run lag p50, p99 and max, the largest max over the runs, the records
# against the trace's lines, in how many runs every record's ISL and OSL
# (the server's counts) equal the trace's lengths, and how many runs were
# flagged client-limited.
#
# Usage: bench/trace-replay.sh
# Env: SPEEDUPS ("1 10"), REPS (3), TRACES ("mooncake-200.jsonl
#      azure-200.csv burstgpt-200.csv"), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
SPEEDUPS=${SPEEDUPS:-1 10}
REPS=${REPS:-3}
TRACES=${TRACES:-mooncake-200.jsonl azure-200.csv burstgpt-200.csv}
PORT=${PORT:-18777}
TOK=$REPO/testdata/tokenizers/files/qwen3
need_tools
need_apt python3 python3 --version
build gollm-bench ./cmd/gollm-bench
GB=$BENCH_WORK/gollm-bench
header_machine=$(machine)

taskset -c "$SERVER_CPU" "$GB" mock-server --preset fast --tokenizer "$TOK" --addr "127.0.0.1:$PORT" >"$BENCH_WORK/mock.log" 2>&1 &
PIDS+=("$!")
wait_http "http://127.0.0.1:$PORT/v1/models"

# lengths_match TRACE REQUESTS_JSONL: exit 0 when the records' (ISL, OSL)
# pairs, as the server counted them, are the trace's (input, output)
# lengths, as multisets (records are in completion order).
lengths_match() {
  python3 - "$1" "$2" <<'PY'
import csv, json, sys
trace, recs = sys.argv[1], sys.argv[2]
if trace.endswith(".jsonl"):
    want = [(r["input_length"], r["output_length"]) for r in map(json.loads, filter(str.strip, open(trace)))]
else:
    rows = list(csv.DictReader(open(trace)))
    keys = ("ContextTokens", "GeneratedTokens") if "ContextTokens" in rows[0] else ("Request tokens", "Response tokens")
    want = [(int(r[keys[0]]), int(r[keys[1]])) for r in rows]
got = [(r.get("server_prompt_tokens"), r.get("server_output_tokens")) for r in map(json.loads, open(recs))]
sys.exit(0 if sorted(want) == sorted(got) else 1)
PY
}

rows=""
for trace in $TRACES; do
  lines=$(grep -cv '^[[:space:]]*$' "$REPO/testdata/traces/$trace")
  case $trace in *.csv) lines=$((lines - 1)) ;; esac # the header
  for s in $SPEEDUPS; do
    p50s="" p99s="" maxs="" recs="" limited=0 exact=0
    for r in $(seq "$REPS"); do
      out=$BENCH_WORK/$trace-$s-$r
      log "replay $trace at ${s}x, run $r"
      taskset -c "$CLIENT_CPU" "$GB" run --target "http://127.0.0.1:$PORT" \
        --trace "$REPO/testdata/traces/$trace" --trace-speedup "$s" \
        --tokenizer "$TOK" --energy none --output-dir "$out" --quiet >"$out.log" 2>&1 || true
      j=$(ls "$out"/*/run.json 2>/dev/null | head -1)
      [ -n "$j" ] || { log "no run.json for $trace ${s}x run $r (see $out.log)"; continue; }
      q='.result.levels[0].summary'
      p50s+="$(jq -r "$q.scheduling_lag_ms.p50" "$j")"$'\n'
      p99s+="$(jq -r "$q.scheduling_lag_ms.p99" "$j")"$'\n'
      maxs+="$(jq -r "$q.scheduling_lag_ms.max" "$j")"$'\n'
      recs+="$(wc -l <"$(dirname "$j")/requests.jsonl")"$'\n'
      [ "$(jq -r "$q.client.client_limited" "$j")" = true ] && limited=$((limited + 1))
      lengths_match "$REPO/testdata/traces/$trace" "$(dirname "$j")/requests.jsonl" && exact=$((exact + 1))
    done
    worst=$(printf '%s' "$maxs" | grep -Ev '^(null|)$' | sort -g | tail -1)
    rows+="| $trace | ${s}x | $lines | $(printf '%s' "$recs" | median) | $(fmt "$(printf '%s' "$p50s" | median)" 2) | $(fmt "$(printf '%s' "$p99s" | median)" 2) | $(fmt "$(printf '%s' "$maxs" | median)" 2) | $(fmt "${worst:--}" 2) | $exact/$REPS | $limited/$REPS |"$'\n'
  done
done

table="| trace | speed-up | lines | records (median) | lag p50 (ms) | lag p99 (ms) | lag max (ms) | largest max (ms) | ISL and OSL exact (runs) | client-limited (runs) |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | :---: |
$rows"
printf '%s\n' "$table"

doc_append <<EOF

### Trace replay run, $(date -u +%Y-%m-%d)

$header_machine
- Mock: \`gollm-bench mock-server --preset fast --tokenizer testdata/tokenizers/files/qwen3\` on CPU $SERVER_CPU; client: \`gollm-bench run --trace testdata/traces/FILE --trace-speedup S --tokenizer testdata/tokenizers/files/qwen3 --energy none\` on CPU $CLIENT_CPU; $REPS runs per cell, medians of the per-run figures. Load average after: $(loadavg).
- Command: \`SPEEDUPS="$SPEEDUPS" REPS=$REPS bench/trace-replay.sh\`

$table
EOF
