#!/usr/bin/env bash
# Memory (issue 7, item 1.3): gollm-bench's RSS against requests completed,
# up to REQUESTS requests with tiny outputs at a high rate, records streamed
# to requests.jsonl; then the size of a record per request, plain and with
# --gzip. RSS is VmRSS from /proc/PID/status, sampled every 0.5 s; the
# request count is the number of lines already in requests.jsonl.
#
# The server is bench/sseserver with no delays and 2 output tokens, pinned
# to SERVER_CPU; gollm-bench runs closed loop (64 streams, the fastest way
# to push a million requests through one core) pinned to CLIENT_CPU.
#
# Usage: bench/memory.sh
# Env: REQUESTS (1000000), GZIP_REQUESTS (100000), STREAMS (64), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
REQUESTS=${REQUESTS:-1000000}
GZIP_REQUESTS=${GZIP_REQUESTS:-100000}
STREAMS=${STREAMS:-64}
need_tools
build gollm-bench ./cmd/gollm-bench
build sseserver ./bench/sseserver
GB=$BENCH_WORK/gollm-bench
W=$BENCH_WORK/memory
mkdir -p "$W"
header_machine=$(machine)
PORT=18290
taskset -c "$SERVER_CPU" "$BENCH_WORK/sseserver" --addr 127.0.0.1:$PORT --ttft 0 --itl 0 --tokens 2 >"$W/sse.log" 2>&1 &
PIDS+=($!)
wait_http http://127.0.0.1:$PORT/v1/models

# run ID N [FLAGS...]: one run of N requests, sampling RSS into ID.tsv
# (seconds, requests, VmRSS kB, VmHWM kB).
run() {
  local id=$1 n=$2; shift 2
  taskset -c "$CLIENT_CPU" "$GB" run --target http://127.0.0.1:$PORT --model mock-model --profile concurrent \
    --rate "$STREAMS" --max-requests "$n" --data prompt_tokens=16,output_tokens=2 --energy none --format json \
    --quiet --output-dir "$W/runs" --run-id "$id" --overwrite "$@" >"$W/$id.log" 2>&1 &
  local pid=$! t0=$SECONDS off=0 lines=0 f="" phase=""
  : >"$W/$id.tsv"
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.5
    local rss hwm size spool nf np
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
    hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null) || break
    [ -n "$rss" ] || break
    # While the level runs, records stream to a spool file; after it, the
    # harness replays them into requests.jsonl with in_window set.
    spool=$(compgen -G "$W/runs/$id/requests-level-*.jsonl.spool" | head -1 || true)
    if [ -n "$spool" ]; then nf=$spool np=run; else nf=$(compgen -G "$W/runs/$id/requests.jsonl*" | head -1 || true) np=replay; fi
    if [ "$nf" != "$f" ]; then f=$nf phase=$np off=0 lines=0; fi
    if [ -n "$f" ] && [ -f "$f" ] && [ "${f%.gz}" = "$f" ]; then
      size=$(stat -c %s "$f" 2>/dev/null || echo "$off")
      if [ "$size" -gt "$off" ]; then
        lines=$((lines + $( (tail -c +$((off + 1)) "$f" | head -c $((size - off)) | tr -cd '\n' | wc -c) 2>/dev/null || true)))
        off=$size
      fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' $((SECONDS - t0)) "$lines" "$rss" "$hwm" "${phase:-start}" >>"$W/$id.tsv"
  done
  wait "$pid" || log "$id: gollm-bench exited with $?"
}
log "memory: $REQUESTS requests"
run mem "$REQUESTS"
log "memory: $GZIP_REQUESTS requests with --gzip"
run gz "$GZIP_REQUESTS" --gzip
run plain-small "$GZIP_REQUESTS"

plain=$W/runs/mem/requests.jsonl
nrec=$(wc -l <"$plain")
bytes=$(stat -c %s "$plain")
gzbytes=$(stat -c %s "$W/runs/gz/requests.jsonl.gz")
smallbytes=$(stat -c %s "$W/runs/plain-small/requests.jsonl")
gzrec=$(zcat "$W/runs/gz/requests.jsonl.gz" | wc -l)
secs=$(tail -1 "$W/mem.tsv" | cut -f1)
peak=$(cut -f4 "$W/mem.tsv" | sort -n | tail -1)
gzpeak=$(cut -f4 "$W/gz.tsv" | sort -n | tail -1)

# RSS at each tenth of the run (the first sample at or past k/10 of N,
# counted in the spool), then the replay into requests.jsonl. Line counts
# lag the client by its write buffer.
table=$(
  echo "| phase | requests completed | RSS (MB) | peak RSS so far (MB) | elapsed (s) |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for k in 1 2 3 4 5 6 7 8 9; do
    awk -F'\t' -v want=$((REQUESTS * k / 10)) '$5=="run" && $2 >= want {print; exit}' "$W/mem.tsv"
  done | uniq | awk -F'\t' '{printf "| run | %d | %.1f | %.1f | %d |\n", $2, $3/1024, $4/1024, $1}'
  awk -F'\t' '$5=="run"' "$W/mem.tsv" | tail -1 | awk -F'\t' '{printf "| run (last sample) | %d | %.1f | %.1f | %d |\n", $2, $3/1024, $4/1024, $1}'
  awk -F'\t' '$5=="replay" {if ($3 > m) {m=$3; row=$0}} END {if (row != "") print row}' "$W/mem.tsv" |
    awk -F'\t' '{printf "| replay into requests.jsonl (highest RSS) | %d | %.1f | %.1f | %d |\n", $2, $3/1024, $4/1024, $1}'
)
r10=$(awk -F'\t' -v want=$((REQUESTS / 10)) '$5=="run" && $2 >= want {print $3; exit}' "$W/mem.tsv")
rend=$(awk -F'\t' '$5=="run"' "$W/mem.tsv" | tail -1 | cut -f3)
growth=$(awk -v a="${r10:-0}" -v b="${rend:-0}" 'BEGIN {if (a > 0) printf "%.1f", 100 * (b - a) / a; else print "-"}')
runpeak=$(awk -F'\t' '$5=="run" && $4 > m {m=$4} END {print m+0}' "$W/mem.tsv")
v="not met"
awk -v p="$peak" -v g="$growth" 'BEGIN {exit !(p / 1024 <= 150 && g != "-" && g <= 10)}' && v=met
out=$(
  echo
  echo "### Memory run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Server: bench/sseserver (no delays, 2 output tokens) on CPU $SERVER_CPU; gollm-bench closed loop, $STREAMS streams, on CPU $CLIENT_CPU; $nrec requests in $secs s. Load average after: $(loadavg)."
  echo "- Command: \`REQUESTS=$REQUESTS GZIP_REQUESTS=$GZIP_REQUESTS STREAMS=$STREAMS bench/memory.sh\`"
  echo
  echo "$table"
  echo
  echo "- Goal: RSS flat and ≤ 150 MB up to $REQUESTS requests: **$v** (peak $(fmt "$(awk -v p="$peak" 'BEGIN {print p/1024}')" 1) MB over the whole process = $(fmt "$(awk -v p="$peak" 'BEGIN {print p/1024/150}')" 2)x the limit, $(fmt "$(awk -v p="$runpeak" 'BEGIN {print p/1024}')" 1) MB while the level ran; RSS from 10 % of the requests to the end of the level changed by $growth %; the rise after the level is the replay of the spool into requests.jsonl)."
  echo "- requests.jsonl: $(fmt "$(awk -v b="$bytes" -v n="$nrec" 'BEGIN {print b/n}')" 0) bytes per request (2 token chunks each: a record grows by about 20 bytes per extra chunk, its \`chunk_times\` entry and \`chunk_tokens\` entry); $(fmt "$(awk -v b="$bytes" 'BEGIN {print b/1048576}')" 0) MiB for $nrec requests."
  echo "- --gzip ($gzrec requests): $(fmt "$(awk -v b="$gzbytes" -v n="$gzrec" 'BEGIN {print b/n}')" 1) bytes per request against $(fmt "$(awk -v b="$smallbytes" -v n="$GZIP_REQUESTS" 'BEGIN {print b/n}')" 0) plain in the same-size run ($(fmt "$(awk -v a="$smallbytes" -v b="$gzbytes" 'BEGIN {print a/b}')" 1)x smaller); peak RSS with --gzip $(fmt "$(awk -v p="$gzpeak" 'BEGIN {print p/1024}')" 1) MB."
)
echo "$out"
echo "$out" | doc_append
