#!/usr/bin/env bash
# Fault campaign (issue 25, the high and medium findings): gollm-bench
# against bench/hostile, a loopback server that misbehaves on purpose, and
# against itself (huge rates). Every step is bounded by `timeout`; nothing
# leaves 127.0.0.1. It prints one row per check and appends the table to
# docs/performance.md.
#
#   1  a huge --rate: refused, or bounded by --max-seconds; client
#      resource errors not blamed on the server; the open-file bound
#   2  $OPENAI_API_KEY beside an explicit Authorization header
#   3  24 streams of an endless SSE line: peak RSS (goal < 300 MB)
#   4  a full disk on a long run (a 1 MiB tmpfs; skipped where mount fails)
#   5  a server's model name and error text with terminal escapes
#   6  a server that ignores max_tokens; an endless stream cut by the
#      request timeout
#   7  (low) a server that echoes the key it was sent in its 401 text
#   9  (low) kill -9 mid-run, then `report` on the folder without run.json
#
# Usage: bench/fault-campaign.sh
# Env: BENCH_WORK, DOC, NO_DOC=1 (print only).
source "$(dirname "$0")/lib.sh"
need_tools
build gollm-bench ./cmd/gollm-bench
build hostile ./bench/hostile
GB=$BENCH_WORK/gollm-bench
W=$BENCH_WORK/faults
rm -rf "$W"
mkdir -p "$W"
header_machine=$(machine)
ROWS=()
row() { ROWS+=("| $1 | $2 | $3 |"); log "$1 | $2 | $3"; }

# serve MODE PORT: start bench/hostile.
serve() {
  "$BENCH_WORK/hostile" --addr "127.0.0.1:$2" --mode "$1" >"$W/hostile-$1.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$2/seen"
}

# bench ID SECONDS ARGS...: gollm-bench run, bounded by SECONDS; sets
# CODE, WALL (s), PEAK (MB) and leaves ID.out/ID.err and the results in
# $W/runs/ID.
bench() {
  local id=$1 limit=$2; shift 2
  set +e
  /usr/bin/time -f '%e %M' -o "$W/$id.time" timeout -s INT -k 5 "$limit" \
    "$GB" run --energy none --output-dir "$W/runs" --run-id "$id" --overwrite "$@" >"$W/$id.out" 2>"$W/$id.err"
  CODE=$?
  set -e
  read -r WALL PEAK_KB < <(tail -1 "$W/$id.time")
  PEAK=$(awk -v k="$PEAK_KB" 'BEGIN {printf "%.0f", k/1024}')
}

# level0 ID JQ: a jq expression on level 0's summary in run.json.
level0() { jq -r ".result.levels[0].summary | $2" "$W/runs/$1/run.json" 2>/dev/null || echo "-"; }
warned() { jq -r '[.result.warnings[]?.code] | unique | join(",")' "$W/runs/$1/run.json" 2>/dev/null || echo "-"; }

serve ok 18391
OK=http://127.0.0.1:18391

# 1. Huge rates.
bench rate-1e10 20 --target "$OK" --profile constant --rate 1e10 --max-seconds 1
row "1 --rate 1e10 --max-seconds 1" "exit $CODE in $WALL s" "$(grep -o 'largest usable rate is [^;,]*' "$W/rate-1e10.err" | head -1)"
bench rate-1e4 60 --target "$OK" --profile constant --rate 1e4 --max-seconds 2 --request-timeout 10s --format json
row "1 --rate 1e4 --max-seconds 2" "exit $CODE in $WALL s, peak RSS $PEAK MB" "sent $(level0 rate-1e4 .requests.sent), failed $(level0 rate-1e4 .requests.failed), client_resource $(level0 rate-1e4 '.requests.client_resource // 0'), client limited $(level0 rate-1e4 .client.client_limited)"
bench rate-1e6 60 --target "$OK" --profile constant --rate 1e6 --max-seconds 1 --request-timeout 10s --format json
row "1 --rate 1e6 --max-seconds 1" "exit $CODE in $WALL s, peak RSS $PEAK MB (goal < 300)" "max_concurrency $(jq -r '.result.levels[0].profile.max_concurrency' "$W/runs/rate-1e6/run.json" 2>/dev/null), peak in flight $(level0 rate-1e6 .client.peak_in_flight); sent $(level0 rate-1e6 .requests.sent), failed $(level0 rate-1e6 .requests.failed), client_resource $(level0 rate-1e6 '.requests.client_resource // 0'), errors $(level0 rate-1e6 '.requests.error_kinds // {} | tostring'); warnings $(warned rate-1e6)"
(
  ulimit -Sn 512 -Hn 512
  bench rate-1e5-512fd 60 --target "$OK" --profile constant --rate 1e5 --max-seconds 1 --request-timeout 10s --format json
  echo "$CODE $WALL $PEAK" >"$W/rate-1e5-512fd.res"
)
read -r CODE WALL PEAK <"$W/rate-1e5-512fd.res"
row "1 --rate 1e5 --max-seconds 1, open files 512" "exit $CODE in $WALL s, peak RSS $PEAK MB" "max_concurrency $(jq -r '.result.levels[0].profile.max_concurrency' "$W/runs/rate-1e5-512fd/run.json" 2>/dev/null), client_resource $(level0 rate-1e5-512fd '.requests.client_resource // 0'), connect $(level0 rate-1e5-512fd '.requests.error_kinds.connect // 0'); warnings $(warned rate-1e5-512fd)"

# 9 (low). kill -9 in the second level, then `report` on the folder left
# without run.json.
set +e
"$GB" run --energy none --target "$OK" --profile constant --rate 40,20 --max-seconds 3 --data prompt_tokens=16,output_tokens=8 \
  --output-dir "$W/runs" --run-id killed --quiet >"$W/killed.out" 2>&1 &
kpid=$!
for _ in $(seq 300); do
  s=$(compgen -G "$W/runs/killed/requests-level-1-*.jsonl.spool" | head -1 || true)
  [ -n "$s" ] && [ -s "$s" ] && break
  sleep 0.05
done
kill -9 "$kpid"
wait "$kpid" 2>/dev/null
"$GB" report "$W/runs/killed" --format console,csv >"$W/killed-report.out" 2>"$W/killed-report.err"
rcode=$?
set -e
row "9 kill -9 in level 1, then report" "run.json: $( [ -f "$W/runs/killed/run.json" ] && echo present || echo absent); report exit $rcode, levels.csv rows $(($(wc -l <"$W/runs/killed/levels.csv" 2>/dev/null || echo 1) - 1))" "$(grep -o 'PARTIAL: no run.json[^(]*' "$W/killed-report.out" | head -1); $(grep -o '[0-9]* records from [^(]*' "$W/killed-report.err" | head -1)"

# 2. The environment's key beside an explicit header (a server of its own,
# so that /seen lists only these requests).
serve ok 18396
OPENAI_API_KEY=ENVSECRET25 bench env-key 60 --target http://127.0.0.1:18396 --profile synchronous --max-requests 3 \
  --header "Authorization=Bearer HDRSECRET25" --format console,csv,html,json
seen=$(curl -s http://127.0.0.1:18396/seen | tr '\t\n' ' ;')
leaks=$( (grep -rl ENVSECRET25 "$W/runs/env-key" "$W/env-key.out" "$W/env-key.err" 2>/dev/null || true) | wc -l)
row "2 OPENAI_API_KEY + --header Authorization" "exit $CODE; server saw: $seen" "ENVSECRET25 in $leaks output file(s) or console; stderr: $(grep -o 'credentials: [^(]*' "$W/env-key.err" | head -1)"

# 3. 24 endless lines.
serve endless-line 18392
bench endless 60 --target http://127.0.0.1:18392 --profile concurrent --rate 24 --max-seconds 5 --format json
row "3 24 streams of an endless SSE line, 5 s" "exit $CODE in $WALL s, peak RSS $PEAK MB (goal < 300)" "errors $(level0 endless '.requests.error_kinds // {} | tostring')"

# 4. A full disk on a long run.
DISK=$W/disk
mkdir -p "$DISK"
if mount -t tmpfs -o size=1m tmpfs "$DISK" 2>/dev/null; then
  rates=$(printf '1,%.0s' $(seq 60)); rates=${rates%,}
  set +e
  timeout -s INT -k 5 120 "$GB" run --energy none --target "$OK" --profile concurrent --rate "$rates" --max-requests 4 \
    --data prompt_tokens=16,output_tokens=8 --output-dir "$DISK" --run-id long --format json >"$W/disk.out" 2>"$W/disk.err"
  code=$?
  "$GB" report "$DISK/long" --format console >"$W/disk-report.out" 2>&1
  rcode=$?
  set -e
  levels=$(jq -r '.result.levels | length' "$DISK/long/run.json" 2>/dev/null || echo "no run.json")
  partial=$(jq -r '.partial' "$DISK/long/run.json" 2>/dev/null || echo "-")
  row "4 60 levels on a 1 MiB disk" "exit $code; run.json: $levels level(s), partial $partial" "report exit $rcode; $(grep -o 'stopping after level [0-9]*' "$W/disk.err" | head -1)"
  umount "$DISK"
else
  row "4 60 levels on a 1 MiB disk" "skipped" "no tmpfs mount here; TestFullDiskOnALongRunKeepsRunJSON covers it with a quota"
fi

# 5. Terminal escapes from the server.
serve hostile-error 18393
bench hostile 60 --target http://127.0.0.1:18393 --profile synchronous --max-requests 3 --format console,csv,json \
  --header "Authorization=Bearer HDRSECRET25"
esc=$(cat "$W/hostile.out" "$W/hostile.err" | tr -cd '\033\007\r' | wc -c)
c1=$(cat "$W/hostile.out" "$W/hostile.err" | grep -c $'\u009b' || true)
hdr=$( (grep -rl HDRSECRET25 "$W/runs/hostile" "$W/hostile.out" "$W/hostile.err" 2>/dev/null || true) | wc -l)
row "7 the 401 text echoes --header Authorization" "exit $CODE" "HDRSECRET25 in $hdr output file(s) or console"
row "5 model name and 401 text with escapes" "exit $CODE; ESC, BEL and CR bytes on the console: $esc; C1 CSI lines: $c1" "stderr shows: $(grep -o 'invalid key.*' "$W/hostile.err" | head -1 | cut -c1-70)"

# 6. max_tokens ignored; an endless stream cut by the request timeout.
serve ignore-max-tokens 18394
bench ignore 60 --target http://127.0.0.1:18394 --profile concurrent --rate 4 --max-requests 40 --data prompt_tokens=16,output_tokens=8 --format json
row "6 server sends 10x max_tokens" "exit $CODE; osl_exceeded $(level0 ignore '.requests.osl_exceeded // 0') of ok $(level0 ignore .requests.ok)" "warnings $(warned ignore)"
serve endless-stream 18395
bench endless-stream 60 --target http://127.0.0.1:18395 --profile concurrent --rate 8 --max-seconds 8 --request-timeout 3s --format json
row "6 endless stream, --request-timeout 3s" "exit $CODE; ok $(level0 endless-stream .requests.ok), failed $(level0 endless-stream .requests.failed)" "output $(level0 endless-stream '.output_tok_s | floor') tok/s, of which failed $(level0 endless-stream '(.failed_output_tok_s // 0) | floor'); warnings $(warned endless-stream)"

out=$(
  echo
  echo "### Fault campaign (issue 25), $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Command: \`bench/fault-campaign.sh\` (bench/hostile on loopback; every run bounded by \`timeout\`)."
  echo
  echo "| check | outcome | detail |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${ROWS[@]}"
)
echo "$out"
[ -n "${NO_DOC:-}" ] || echo "$out" | doc_append
rm -rf "$W/runs" # the huge-rate runs write hundreds of MB of records
