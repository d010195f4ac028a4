#!/usr/bin/env bash
# prometheus-check.sh: a real Prometheus in the loop (issue 16). Builds the
# Prometheus server once into a cache folder outside the repository, starts
# it on 127.0.0.1 scraping bench/fakeexporter every second (DCGM, Kepler and
# LiteLLM counters advancing at known rates), runs a short `gollm-bench run`
# against the in-process mock with --energy prometheus=URL, --pod-energy
# prometheus=URL,... and --litellm-metrics prometheus=URL,..., and checks
# that every energy, pod-energy and token figure in run.json equals its
# rate x window within one scrape interval's worth of the counter.
# Not part of `make test`: the first build takes minutes of CPU.
#
# Usage: bench/prometheus-check.sh
# Env:   PROM_CACHE     where the prometheus binary is kept
#                       (default ~/.cache/gollm-bench/prometheus-v0.316.0)
#        PROM_VERSION   module version to build (default v0.316.0, the 3.x line)
#        PROM_PORT, EXPORTER_PORT   loopback ports (default 19090, 19187)
#        SECONDS_PER_LEVEL          the run's --max-seconds (default 20)
# Exits 0 when every figure is within tolerance, 1 otherwise.
source "$(dirname "$0")/lib.sh"

PROM_VERSION=${PROM_VERSION:-v0.316.0}
PROM_CACHE=${PROM_CACHE:-$HOME/.cache/gollm-bench/prometheus-$PROM_VERSION}
PROM_PORT=${PROM_PORT:-19090}
EXPORTER_PORT=${EXPORTER_PORT:-19187}
LEVEL_S=${SECONDS_PER_LEVEL:-20}
SCRAPE=1s

PROM=$PROM_CACHE/prometheus
if [ ! -x "$PROM" ]; then
  log "building prometheus $PROM_VERSION into $PROM_CACHE (go install, nice -n 19: minutes)"
  mkdir -p "$PROM_CACHE"
  start=$SECONDS
  if ! GOBIN=$PROM_CACHE CGO_ENABLED=0 nice -n 19 go install "github.com/prometheus/prometheus/cmd/prometheus@$PROM_VERSION" \
      >"$BENCH_WORK/prometheus-build.log" 2>&1; then
    log "prometheus build FAILED after $((SECONDS - start)) s; the log: $BENCH_WORK/prometheus-build.log"
    tail -20 "$BENCH_WORK/prometheus-build.log" >&2
    exit 1
  fi
  log "built in $((SECONDS - start)) s"
fi

cd "$REPO"
go build -o "$BENCH_WORK/fakeexporter" ./bench/fakeexporter
go build -o "$BENCH_WORK/gollm-bench" ./cmd/gollm-bench

"$BENCH_WORK/fakeexporter" serve -addr "127.0.0.1:$EXPORTER_PORT" >"$BENCH_WORK/exporter.log" 2>&1 &
PIDS+=($!)
cat >"$BENCH_WORK/prometheus.yml" <<YAML
global:
  scrape_interval: $SCRAPE
  evaluation_interval: $SCRAPE
scrape_configs:
  - job_name: fixtures
    static_configs:
      - targets: ['127.0.0.1:$EXPORTER_PORT']
YAML
"$PROM" --config.file="$BENCH_WORK/prometheus.yml" --storage.tsdb.path="$BENCH_WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$BENCH_WORK/prometheus.log" 2>&1 &
PIDS+=($!)
URL=http://127.0.0.1:$PROM_PORT
for _ in $(seq 60); do
  curl -fsS "$URL/-/ready" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "$URL/-/ready" >/dev/null || { log "prometheus did not get ready; its log:"; tail -20 "$BENCH_WORK/prometheus.log" >&2; exit 1; }
# A few scrapes before the window opens, so that increase() has samples on
# both sides of its start.
sleep 5
log "prometheus ready at $URL; $(curl -fsS "$URL/api/v1/query?query=up" | jq -r '.data.result[0].value[1]') target up"

OUT=$BENCH_WORK/results
"$BENCH_WORK/gollm-bench" run --mock-preset fast --profile concurrent --rate 4 --max-seconds "$LEVEL_S" \
  --data prompt_tokens=64,output_tokens=16 --warmup 10% --cooldown 10% \
  --energy "prometheus=$URL" \
  --pod-energy "prometheus=$URL,namespace=bench,pod=mock-0" \
  --litellm-metrics "prometheus=$URL,requested_model=mock-model" \
  --output-dir "$OUT" --run-id prometheus-check --format json --quiet >&2
# go install sets no version in the binary: name the module version.
echo "== $("$BENCH_WORK/gollm-bench" version 2>/dev/null | head -1), prometheus (built from the module $PROM_VERSION), scrape interval $SCRAPE"
"$BENCH_WORK/fakeexporter" check -scrape "$SCRAPE" "$OUT/prometheus-check"
