#!/usr/bin/env bash
# Hot-path micro-benchmarks (issue 7, item 1.4): go test -bench with
# b.ReportAllocs on the streaming path (SSE framing, chunk decoding, a whole
# streamed request per chunk, in memory and over loopback), histogram
# recording, the pacers and the JSONL encoder. COUNT runs each, median shown.
#
# Usage: bench/micro.sh
# Env: COUNT (5), BENCHTIME (1s), CPU (CLIENT_CPU: one core, as in the load runs), BENCH_WORK, DOC.
source "$(dirname "$0")/lib.sh"
COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-1s}
CPU=${CPU:-$CLIENT_CPU}
CHUNKS=256 # benchChunks in openai/bench_test.go: token chunks per request in BenchmarkDoStream*
W=$BENCH_WORK/micro
mkdir -p "$W"
header_machine=$(machine)
cd "$REPO"
: >"$W/raw.txt"
for spec in "./openai SSENext|ChunkDecode|DoStream" "./metrics RecordLatency" "./loadgen ConstantPacer|PoissonPacer|Encoder"; do
  pkg=${spec%% *} re=${spec#* }
  log "go test -bench '$re' $pkg"
  taskset -c "$CPU" go test -run '^$' -bench "^Benchmark($re)" -benchmem -benchtime "$BENCHTIME" -count "$COUNT" "$pkg" | tee -a "$W/raw.txt" >&2
done
# name value unit ... -> rows: name, metric, value
awk '/^Benchmark/ {n=$1; sub(/-[0-9]+$/, "", n); for (i=3; i<NF; i+=2) print n "\t" $(i+1) "\t" $i}' "$W/raw.txt" >"$W/rows.tsv"
m() { awk -F'\t' -v n="$1" -v u="$2" '$1==n && $2==u {print $3}' "$W/rows.tsv" | median; }
what() {
  case $1 in
    BenchmarkSSENext) echo "SSE framing, per event (one chunk)";;
    BenchmarkChunkDecode) echo "chunk JSON decode + classify, per chunk";;
    BenchmarkDoStream/plain) echo "whole streamed request, in memory, $CHUNKS chunks (record per chunk)";;
    BenchmarkDoStream/tokencounter) echo "the same with a local token counter taking strings (WithTokenCounter)";;
    BenchmarkDoStream/bytetokencounter) echo "the same with a counter taking the bytes (WithByteTokenCounter)";;
    BenchmarkDoStream/tokenizer) echo "the same with the Qwen3 tokenizer counting each chunk (--tokenizer)";;
    BenchmarkDoStreamLoopback/auto) echo "whole streamed request over loopback HTTP, $CHUNKS chunks, kernel receive clock";;
    BenchmarkDoStreamLoopback/user) echo "the same, user-space clock (--receive-clock user)";;
    BenchmarkRecordLatency) echo "HDR histogram record";;
    BenchmarkConstantPacer) echo "constant pacer tick";;
    BenchmarkPoissonPacer) echo "Poisson pacer tick";;
    BenchmarkEncoder/plain) echo "JSONL encode, one 256-chunk record";;
    BenchmarkEncoder/gzip) echo "the same, gzip";;
    *) echo "";;
  esac
}
names=$(cut -f1 "$W/rows.tsv" | awk '!seen[$0]++')
table=$(
  echo "| benchmark | what | ns/op | ns/chunk | B/op | allocs/op | allocs/chunk |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
  for n in $names; do
    a=$(m "$n" allocs/op); per="-"
    case $n in BenchmarkDoStream*) per=$(fmt "$(awk -v a="$a" -v c=$CHUNKS 'BEGIN {print a/c}')" 3);; BenchmarkSSENext|BenchmarkChunkDecode) per=$(fmt "$a" 0);; esac
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${n#Benchmark}" "$(what "$n")" "$(fmt "$(m "$n" ns/op)" 1)" \
      "$(fmt "$(m "$n" ns/chunk)" 0)" "$(fmt "$(m "$n" B/op)" 0)" "$(fmt "$a" 0)" "$per"
  done
)
plain=$(awk -v a="$(m BenchmarkDoStream/plain allocs/op)" -v c=$CHUNKS 'BEGIN {print a/c}')
loop=$(awk -v a="$(m BenchmarkDoStreamLoopback/auto allocs/op)" -v c=$CHUNKS 'BEGIN {print a/c}')
tok=$(awk -v a="$(m BenchmarkDoStream/tokenizer allocs/op)" -v c=$CHUNKS 'BEGIN {print a/c}')
v="not met"; awk -v p="$plain" -v l="$loop" 'BEGIN {exit !(p <= 1 && l <= 1)}' && v=met
vt="not met"; awk -v t="$tok" 'BEGIN {exit !(t <= 1)}' && vt=met
out=$(
  echo
  echo "### Micro-benchmarks run, $(date -u +%Y-%m-%d)"
  echo
  echo "$header_machine"
  echo "- Pinned to CPU $CPU; $COUNT runs of ${BENCHTIME} each, median shown. Load average after: $(loadavg)."
  echo "- Command: \`COUNT=$COUNT BENCHTIME=$BENCHTIME bench/micro.sh\` (it runs \`go test -run '^\$' -bench '^Benchmark(SSENext|ChunkDecode|DoStream)' -benchmem ./openai\`, then \`RecordLatency\` in ./metrics and \`ConstantPacer|PoissonPacer|Encoder\` in ./loadgen)"
  echo
  echo "$table"
  echo
  echo "- Goal: ≤ 1 allocation per chunk on the streaming path: **$v** ($(fmt "$plain" 3) allocs/chunk in memory, $(fmt "$loop" 3) over loopback, request setup included: $(fmt "$plain" 3)x and $(fmt "$loop" 3)x the goal)."
  echo "- With the Qwen3 tokenizer counting each chunk (\`--tokenizer\`): **$vt** ($(fmt "$tok" 3) allocs/chunk)."
)
echo "$out"
echo "$out" | doc_append
