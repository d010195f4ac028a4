#!/usr/bin/env bash
# The regression gate's false-alarm and detection counts (issue 28). PAIRS
# pairs of same-configuration runs of one mock (fixed scheduler, TTFT
# 20 ms, ITL 5 ms, 16 output tokens) are compared with
# `compare A B --fail-on ttft_p99:+5%`, and each A against a run of a mock
# whose TTFT is 30 ms. Each comparison's exit code is its gate outcome: 0
# within, 3 regressed, 5 undecided (2: not checked, e.g. too few requests
# to bound a p99). The table counts the outcomes: a
# same-configuration pair must never be "regressed", and the 20 → 30 ms
# shift always. The runs are `run --profile concurrent --rate 4
# --max-requests 400`, one after another, seeds 2i−1 and 2i; the two mocks
# run in their own processes on SERVER_CPU, the client on CLIENT_CPU.
#
# With REPEAT=N (N > 1) each side is one `run --repeat N` of REQUESTS/N
# requests a run, so that the gate's interval comes from the spread
# between runs (the same requests in all).
#
# Usage: bench/compare-gate.sh
# Env: PAIRS (20), REQUESTS (400), REPEAT (1), OUTPUT_TOKENS (16), ITL (5ms),
# BENCH_WORK, DOC; FIRST_PAIR (1): the number of the first pair, which sets
# its seeds, so that lanes run side by side (bench/device-check.sh) use
# distinct seeds. Without jq (a machine lent without it) the detail
# columns stay empty and the counts are kept.
source "$(dirname "$0")/lib.sh"
PAIRS=${PAIRS:-20}
REQUESTS=${REQUESTS:-400}
REPEAT=${REPEAT:-1}
PER_RUN=$((REQUESTS / REPEAT))
OUTPUT_TOKENS=${OUTPUT_TOKENS:-16}
ITL=${ITL:-5ms}
PORT_A=${PORT_A:-18781}
PORT_B=${PORT_B:-18782}
FIRST_PAIR=${FIRST_PAIR:-1}
command -v jq >/dev/null 2>&1 || need_tools || log "no jq here: the detail columns stay empty"
build gollm-bench ./cmd/gollm-bench
GB=$BENCH_WORK/gollm-bench
header_machine=$(machine)

mock() { # PORT TTFT
  taskset -c "$SERVER_CPU" "$GB" mock-server --preset fast --scheduler fixed --ttft "$2" --itl "$ITL" \
    --output-tokens "$OUTPUT_TOKENS" --addr "127.0.0.1:$1" >"$BENCH_WORK/mock-$1.log" 2>&1 &
  PIDS+=("$!")
  wait_http "http://127.0.0.1:$1/v1/models"
}
mock "$PORT_A" 20ms
mock "$PORT_B" 30ms

# one PORT SEED NAME: a run; prints its folder.
one() {
  local out=$BENCH_WORK/$3
  rm -rf "$out"
  taskset -c "$CLIENT_CPU" "$GB" run --target "http://127.0.0.1:$1" --profile concurrent --rate 4 \
    --max-requests "$PER_RUN" --repeat "$REPEAT" --seed "$2" --energy none --output-dir "$out" --quiet >"$out.log" 2>&1 || true
  dirname "$(ls "$out"/*/run.json | head -1)"
}

# gate A B: the exit code of compare --fail-on ttft_p99:+5%, and the
# TTFT p99 change with its interval, as "CODE +4.1% [+1.0%, +7.2%]".
gate() {
  local code=0 js
  js=$("$GB" compare "$1" "$2" --fail-on ttft_p99:+5% --format json 2>/dev/null) || code=$?
  if ! command -v jq >/dev/null 2>&1; then printf '%s -\n' "$code"; return; fi
  printf '%s %s\n' "$code" "$(jq -r '[.comparisons[0].rows[] | select(.metric.key == "ttft_p99")][0] | def pct: if . == null then "unbounded" else "\(.*1000|round/10)%" end; "\(.rel|pct) [\(.rel_ci[0]?|pct), \(.rel_ci[1]?|pct)]"' <<<"$js")"
}

declare -A same=([0]=0 [2]=0 [3]=0 [5]=0) moved=([0]=0 [2]=0 [3]=0 [5]=0)
lines=""
for i in $(seq "$FIRST_PAIR" $((FIRST_PAIR + PAIRS - 1))); do
  log "pair $i (of $PAIRS from $FIRST_PAIR)"
  a=$(one "$PORT_A" $((2 * i - 1)) "a$i")
  a2=$(one "$PORT_A" $((2 * i)) "a2-$i")
  b=$(one "$PORT_B" $((2 * i)) "b$i")
  read -r cs ds < <(gate "$a" "$a2")
  read -r cb db < <(gate "$a" "$b")
  same[$cs]=$(( ${same[$cs]:-0} + 1 ))
  moved[$cb]=$(( ${moved[$cb]:-0} + 1 ))
  lines+="| $i | $cs | $ds | $cb | $db |"$'\n'
done

table="| comparison | pairs | regressed (exit 3) | undecided (exit 5) | within (exit 0) | not checked (exit 2) |
| --- | ---: | ---: | ---: | ---: | ---: |
| same configuration (20 ms vs 20 ms) | $PAIRS | ${same[3]} | ${same[5]} | ${same[0]} | ${same[2]} |
| TTFT shift (20 ms vs 30 ms) | $PAIRS | ${moved[3]} | ${moved[5]} | ${moved[0]} | ${moved[2]} |"
detail="| pair | same: exit | same: TTFT p99 change | shift: exit | shift: TTFT p99 change |
| ---: | ---: | --- | ---: | --- |
$lines"
printf '%s\n\n%s\n' "$table" "$detail"

doc_append <<EOF

### Regression gate run, $(date -u +%Y-%m-%d), --repeat $REPEAT

$header_machine
- Mocks: \`gollm-bench mock-server --preset fast --scheduler fixed --ttft 20ms|30ms --itl $ITL --output-tokens $OUTPUT_TOKENS\` on CPU $SERVER_CPU; client: \`gollm-bench run --profile concurrent --rate 4 --max-requests $PER_RUN --repeat $REPEAT --seed S --energy none\` on CPU $CLIENT_CPU, one run after another; \`gollm-bench compare A B --fail-on ttft_p99:+5%\`. Load average after: $(loadavg).
- Command: \`PAIRS=$PAIRS REPEAT=$REPEAT bench/compare-gate.sh\`

$table

$detail
EOF
