#!/usr/bin/env bash
# Soak (issue 25, item 13): is gollm-bench's memory flat during a long
# level, and bounded after it? One Poisson level at RATE req/s against
# bench/sseserver for SOAK_SECONDS, records gzipped, every output format
# (report.html reads the records back at the end). VmRSS and VmHWM of the
# client come from /proc/PID/status every second; the requests done are
# the lines already in the level's spool file (records reach it within a
# second), and the level's phase is the SOAK_SECONDS after its spool
# appears. It prints RSS at the start (10 % into the level, once the
# connections are up), the middle and the end of the level, the peak
# during the level and after it (writing the results), and the slope of
# RSS against requests over the level from 10 % on (least squares, bytes
# per request): a flat level has a slope near 0; growth per request shows
# as a steady positive slope.
#
# The server is pinned to SERVER_CPU, gollm-bench to CLIENT_CPU.
#
# Usage: bench/soak.sh [--long]   (--long: 10 minutes instead of 2)
# Env: SOAK_SECONDS (120; 600 with --long), RATE (1000), BENCH_WORK, DOC,
#      NO_DOC=1 (print only).
source "$(dirname "$0")/lib.sh"
SOAK_SECONDS=${SOAK_SECONDS:-120}
[ "${1:-}" = --long ] && SOAK_SECONDS=600
RATE=${RATE:-1000}
need_tools
build gollm-bench ./cmd/gollm-bench
build sseserver ./bench/sseserver
GB=$BENCH_WORK/gollm-bench
W=$BENCH_WORK/soak
rm -rf "$W"
mkdir -p "$W"
header_machine=$(machine)
PORT=18297
taskset -c "$SERVER_CPU" "$BENCH_WORK/sseserver" --addr 127.0.0.1:$PORT >"$W/sse.log" 2>&1 &
PIDS+=($!)
wait_http http://127.0.0.1:$PORT/stats

log "soak: $RATE req/s Poisson for $SOAK_SECONDS s"
taskset -c "$CLIENT_CPU" /usr/bin/time -f '%M' -o "$W/time" timeout -s INT -k 10 $((SOAK_SECONDS + 300)) \
  "$GB" run --target http://127.0.0.1:$PORT --model mock-model --profile poisson --rate "$RATE" \
  --max-seconds "$SOAK_SECONDS" --data prompt_tokens=16,output_tokens=16 --energy none --gzip \
  --format console,json,csv,html --quiet --output-dir "$W/runs" --run-id soak >"$W/soak.out" 2>"$W/soak.err" &
tpid=$!
# The client is the child of timeout, the child of /usr/bin/time ($tpid:
# taskset execs it).
pid=""
for _ in $(seq 50); do
  tmo=$(pgrep -P "$tpid" | head -1 || true)
  [ -n "$tmo" ] && pid=$(pgrep -P "$tmo" | head -1 || true)
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || { log "gollm-bench did not start"; cat "$W/soak.err" >&2; exit 1; }
# Samples: elapsed s, requests done, VmRSS kB, VmHWM kB, phase (level or after).
t0=$SECONDS off=0 lines=0 f="" ts=$SECONDS
: >"$W/rss.tsv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
  [ -n "$rss" ] || break
  spool=$(compgen -G "$W/runs/soak/requests-level-*.jsonl.spool" | head -1 || true)
  phase=after
  if [ -n "$spool" ]; then
    # The spool outlives the schedule: the level drains, then its records
    # are copied into requests.jsonl.gz. Those seconds count as after.
    [ "$spool" = "$f" ] || { f=$spool off=0 ts=$SECONDS; }
    [ $((SECONDS - ts)) -lt "$SOAK_SECONDS" ] && phase=level
    size=$(stat -c %s "$f" 2>/dev/null || echo "$off")
    if [ "$size" -gt "$off" ]; then
      lines=$((lines + $( (tail -c +$((off + 1)) "$f" | head -c $((size - off)) | tr -cd '\n' | wc -c) 2>/dev/null || true)))
      off=$size
    fi
  elif [ "$lines" = 0 ]; then
    phase=start
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' $((SECONDS - t0)) "$lines" "$rss" "$hwm" "$phase" >>"$W/rss.tsv"
  sleep 1
done
set +e
wait "$tpid"
code=$?
set -e
peak_kb=$(tail -1 "$W/time")
json=$W/runs/soak/run.json
done_n=$(jq -r '.result.levels[0].summary.requests.scheduled' "$json" 2>/dev/null || echo -)
failed=$(jq -r '.result.levels[0].summary.requests.failed' "$json" 2>/dev/null || echo -)
lag=$(jq -r '.result.levels[0].summary.scheduling_lag_ms.p99 // "-"' "$json" 2>/dev/null || echo -)
peak_inflight=$(jq -r '.result.levels[0].summary.client.peak_in_flight // "-"' "$json" 2>/dev/null || echo -)

# level SHARE: the first level sample at or past SHARE of the level's
# samples: "elapsed requests rss".
lvl=$W/level.tsv
awk -F'\t' '$5=="level"' "$W/rss.tsv" >"$lvl"
nl=$(wc -l <"$lvl")
at() { awk -F'\t' -v k="$(awk -v n="$nl" -v s="$1" 'BEGIN {k=int(n*s); print (k<1)?1:k}')" 'NR==k {print $1, $2, $3; exit}' "$lvl"; }
read -r s_t s_n s_rss < <(at 0.1)
read -r m_t m_n m_rss < <(at 0.5)
read -r e_t e_n e_rss < <(tail -1 "$lvl" | awk -F'\t' '{print $1, $2, $3}')
lvl_peak=$(cut -f3 "$lvl" | sort -n | tail -1)
after_peak=$(awk -F'\t' '$5=="after" && $3 > m {m=$3} END {print m+0}' "$W/rss.tsv")
# Least squares of RSS (bytes) on requests over the samples from 10 % on.
slope=$(awk -F'\t' -v from="$s_n" '$2 >= from && $2 > 0 {n++; x=$2; y=$3*1024; sx+=x; sy+=y; sxx+=x*x; sxy+=x*y}
  END {d=n*sxx-sx*sx; if (n < 3 || d == 0) print "-"; else printf "%.2f", (n*sxy-sx*sy)/d}' "$lvl")
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k/1024}'; }
out=$(
  echo
  echo "### Soak run, $(date -u +%Y-%m-%d) (issue 25)"
  echo
  echo "$header_machine"
  echo "- The machine is 2 shared cores (other work ran beside it). Server: bench/sseserver (TTFT 20 ms, ITL 5 ms, 16 tokens) on CPU $SERVER_CPU; gollm-bench on CPU $CLIENT_CPU; one Poisson level at $RATE req/s for $SOAK_SECONDS s, --gzip, every output format; exit $code; $done_n requests scheduled, $failed failed, scheduling lag p99 $lag ms, at most $peak_inflight requests in flight."
  echo "- Command: \`SOAK_SECONDS=$SOAK_SECONDS RATE=$RATE bench/soak.sh\`"
  echo
  echo "| point | elapsed (s) | requests done | RSS (MB) |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| level start (10 %) | $s_t | $s_n | $(mb "$s_rss") |"
  echo "| level middle | $m_t | $m_n | $(mb "$m_rss") |"
  echo "| level end | $e_t | $e_n | $(mb "$e_rss") |"
  echo "| peak during the level | | | $(mb "$lvl_peak") |"
  echo "| peak after the level (writing results) | | | $(mb "$after_peak") |"
  echo "| peak of the process (VmHWM) | | | $(mb "$peak_kb") |"
  echo
  echo "- Slope of RSS over the level from 10 % on: $slope bytes per request (least squares over $(awk -v n="$nl" 'BEGIN {print int(n*0.9)}') one-second samples)."
)
echo "$out"
[ -n "${NO_DOC:-}" ] || echo "$out" | doc_append
rm -rf "$W/runs"
