#!/usr/bin/env bash
# nvml-check.sh: on a GPU machine, compare the NVML energy counter with
# nvidia-smi power readings over an idle window and a loaded window.
# Finishes in well under 60 s. Usage:
#   bench/nvml-check.sh [path/to/nvmlcheck]   (default: build it with go)
# Prints a compact table per window; exits 0 when it could measure, 1 when
# NVML is unusable here.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${1:-}
if [ -z "$BIN" ]; then
  if command -v go >/dev/null 2>&1; then
    BIN=$(mktemp -d)/nvmlcheck
    # CGO_ENABLED=0, as `make build`: NVML is loaded with dlopen, without cgo.
    CGO_ENABLED=0 timeout 60 go build -o "$BIN" ./bench/nvmlcheck || { echo "nvml-check: build failed"; exit 1; }
  else
    echo "nvml-check: no Go toolchain here; pass a prebuilt nvmlcheck binary (CGO_ENABLED=0 go build -o nvmlcheck ./bench/nvmlcheck)"
    exit 1
  fi
fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "nvml-check: nvidia-smi not found (NVML-only comparison)"
else
  nvidia-smi --query-gpu=index,name,driver_version,power.limit,temperature.gpu,clocks.sm --format=csv,noheader
fi

# Pick a GPU load: torch matmul if available, else cupy, else none (idle only).
LOAD=()
PY=$(command -v python3 || command -v python || true)
if [ -n "$PY" ] && timeout 20 "$PY" -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  LOAD=("$PY" -c '
import time, torch
n = torch.cuda.device_count()
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.bfloat16) for i in range(n)]
end = time.time() + 60
while time.time() < end:
    for x in xs:
        x @ x
    torch.cuda.synchronize()
')
  echo "nvml-check: load = torch bf16 matmul on every GPU"
elif [ -n "$PY" ] && timeout 20 "$PY" -c 'import cupy' 2>/dev/null; then
  LOAD=("$PY" -c '
import time, cupy as cp
x = cp.random.rand(8192, 8192, dtype=cp.float32)
end = time.time() + 60
while time.time() < end:
    x @ x; cp.cuda.Device().synchronize()
')
  echo "nvml-check: load = cupy fp32 matmul on GPU 0"
else
  echo "nvml-check: no torch or cupy: loaded window skipped, idle only"
fi

echo "== idle window (3 s)"
timeout 15 "$BIN" -seconds 3 || exit 1
if [ ${#LOAD[@]} -gt 0 ]; then
  echo "== loaded window (10 s; the load needs a few seconds to start)"
  timeout 30 "$BIN" -seconds 10 -- "${LOAD[@]}"
fi
