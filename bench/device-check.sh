#!/usr/bin/env bash
# device-check.sh: what a GPU machine lent for a few minutes can tell us,
# in one run of about 7 minutes, with prebuilt binaries (such a machine may
# have no Go toolchain and no network):
#   1. NVML's energy counter against nvidia-smi's power readings, idle and
#      under a matmul load (bench/nvml-check.sh);
#   2. the product's own energy path: `gollm-bench run --energy nvml` with
#      the thermal gate, against the built-in mock, while the same load
#      runs, so that the run's GPU energy can be set beside step 1's;
#   3. the regression gate's counts (bench/compare-gate.sh) on a quiet
#      many-core machine: LANES lanes side by side, each with its own two
#      mocks on one CPU and its client on another, PAIRS pairs in all,
#      first with single runs, then with --repeat 3.
# Build the binaries first, on any machine of the same architecture:
#   CGO_ENABLED=0 go build -o bin/gollm-bench ./cmd/gollm-bench
#   CGO_ENABLED=0 go build -o bin/nvmlcheck ./bench/nvmlcheck
# Usage: bench/device-check.sh        Env: BIN (bin), OUT (/tmp/device-check),
#   LANES (5), PAIRS (20), STEPS ("nvml energy gate").
# Every step writes its output under OUT as it goes, so a step cut off by a
# time limit leaves what it measured.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=$(cd "${BIN:-bin}" && pwd)
OUT=${OUT:-/tmp/device-check}
LANES=${LANES:-5}
PAIRS=${PAIRS:-20}
STEPS=${STEPS:-nvml energy gate}
mkdir -p "$OUT"
stamp() { date -u +%H:%M:%S; }
say() { printf '[%s] %s\n' "$(stamp)" "$*" | tee -a "$OUT/steps.log" >&2; }

say "machine: $(nproc) CPUs, $(uname -sr); tools: $(for t in nvidia-smi python3 jq curl taskset; do command -v $t >/dev/null 2>&1 && printf '%s ' $t; done)"
command -v taskset >/dev/null 2>&1 || { taskset() { shift 2; "$@"; }; export -f taskset; say "no taskset: lanes run unpinned"; }

# The load of steps 1 and 2: torch bf16 matmul for SECONDS on every GPU.
gpu_load() {
  python3 -c '
import sys, time, torch
n = torch.cuda.device_count()
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.bfloat16) for i in range(n)]
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for x in xs:
        x @ x
    torch.cuda.synchronize()
' "$1"
}
has_torch=0
timeout 30 python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && has_torch=1

for step in $STEPS; do
  case $step in
  nvml)
    say "step 1: NVML against nvidia-smi"
    timeout 120 bench/nvml-check.sh "$BIN/nvmlcheck" 2>&1 | tee "$OUT/nvml-check.txt"
    ;;
  energy)
    say "step 2: gollm-bench run --energy nvml, mock, GPU load: $has_torch"
    [ "$has_torch" = 1 ] && { gpu_load 40 & lp=$!; sleep 5; }
    timeout 90 "$BIN/gollm-bench" run --profile constant --rate 20 --max-seconds 15 --energy nvml --gpu-cost-eur-h 3.5 --grid-gco2-kwh 350 \
      --stabilize=5s,10W,20s --output-dir "$OUT/energy" >"$OUT/energy-run.txt" 2>&1
    echo "exit $?" >>"$OUT/energy-run.txt"
    [ "$has_torch" = 1 ] && wait "$lp"
    tail -40 "$OUT/energy-run.txt"
    run_json=$(ls "$OUT"/energy/*/run.json 2>/dev/null | head -1)
    [ -n "$run_json" ] && grep -n -i -E '"(energy|gpu|wh|joule|power|source|stabiliz)[a-z_]*"' "$run_json" | head -60 >"$OUT/energy-fields.txt"
    ;;
  gate)
    per=$(( (PAIRS + LANES - 1) / LANES ))
    for repeat in 1 3; do
      say "step 3: gate, --repeat $repeat, $LANES lanes of $per pairs"
      pids=()
      for lane in $(seq 0 $((LANES - 1))); do
        w=$OUT/gate-r$repeat-lane$lane
        mkdir -p "$w" && cp "$BIN/gollm-bench" "$w/gollm-bench"
        BENCH_WORK=$w DOC=$w/doc.md REPEAT=$repeat PAIRS=$per FIRST_PAIR=$((lane * per + 1)) \
          PORT_A=$((18781 + 2 * lane)) PORT_B=$((18782 + 2 * lane)) \
          SERVER_CPU=$(((2 + 2 * lane) % $(nproc))) CLIENT_CPU=$(((3 + 2 * lane) % $(nproc))) \
          timeout 280 bench/compare-gate.sh >"$w/table.txt" 2>"$w/log.txt" &
        pids+=("$!")
      done
      wait "${pids[@]}"
      # Sum the lanes' count rows: same configuration, then TTFT shift.
      cat "$OUT"/gate-r$repeat-lane*/table.txt | awk -F'|' -v r="$repeat" '
        /^\| same configuration/ { for (i = 3; i <= 7; i++) s[i] += $i }
        /^\| TTFT shift/ { for (i = 3; i <= 7; i++) m[i] += $i }
        END {
          printf "--repeat %s: comparison | pairs | regressed | undecided | within | not checked\n", r
          printf "same configuration | %d | %d | %d | %d | %d\n", s[3], s[4], s[5], s[6], s[7]
          printf "TTFT shift 20->30 ms | %d | %d | %d | %d | %d\n", m[3], m[4], m[5], m[6], m[7]
        }' | tee "$OUT/gate-r$repeat.txt"
      cat "$OUT"/gate-r$repeat-lane*/doc.md >"$OUT/gate-r$repeat-detail.md" 2>/dev/null
    done
    ;;
  esac
done
say "done"
