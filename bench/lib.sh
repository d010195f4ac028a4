# Shared helpers of the bench/ scripts; source it, do not run it.
# Every script builds what it needs into $BENCH_WORK, prints a short table
# and appends a dated section to docs/performance.md (DOC).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=${DOC:-$REPO/docs/performance.md}
# CPUs: the server under test on SERVER_CPU, the client being measured on
# CLIENT_CPU, so neither steals the other's core on this 2-core box.
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
BENCH_WORK=${BENCH_WORK:-$(mktemp -d /tmp/gollm-bench-bench.XXXXXX)}
mkdir -p "$BENCH_WORK"

# PIDS holds the background processes this script started; cleanup stops
# them by id.
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# need_apt PKG CMD: install the Debian package PKG unless CMD succeeds.
need_apt() {
  local pkg=$1; shift
  if "$@" >/dev/null 2>&1; then return; fi
  log "installing $pkg (apt-get)"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y "$pkg" >/dev/null 2>&1 || { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y "$pkg" >/dev/null; }
}

need_tools() {
  need_apt jq jq --version
}

# build NAME PKG: go build PKG into $BENCH_WORK/NAME (once).
build() {
  [ -x "$BENCH_WORK/$1" ] || (cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$BENCH_WORK/$1" "$2")
}

# wait_http URL: wait up to 10 s for URL to answer (without curl, for
# its http://HOST:PORT to accept a connection).
wait_http() {
  local i hostport
  for i in $(seq 100); do
    if command -v curl >/dev/null 2>&1; then
      curl -sf -o /dev/null "$1" && return 0
    else
      hostport=${1#http://}; hostport=${hostport%%/*}
      (exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}") 2>/dev/null && return 0
    fi
    sleep 0.1
  done
  log "no answer from $1"; return 1
}

# median: the median of the numbers on stdin (one a line; blank lines and
# "null" skipped); prints "-" for none.
median() {
  grep -Ev '^(null|)$' | sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

# fmt NUM [DECIMALS]: a number rounded, or "-" unchanged.
fmt() {
  case $1 in -|null|"") echo "-" ;; *) printf "%.${2:-1}f" "$1" ;; esac
}

commit() {
  local c
  c=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$REPO" diff --quiet HEAD -- . ':!docs/performance.md' 2>/dev/null || c="$c+dirty"
  echo "$c"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# machine: one markdown line naming where and when a figure was taken.
machine() {
  local cpu
  cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
  printf -- '- Machine: %s CPUs (nproc), %s, %s; %s.\n' "$(nproc)" "${cpu:-unknown CPU}" "$(uname -sr)" "$(cd "$REPO" && go version | cut -d' ' -f3)"
  printf -- '- Date: %s. Commit: %s. Load average at start: %s.\n' "$(date -u +'%Y-%m-%d %H:%M UTC')" "$(commit)" "$(loadavg)"
}

# doc_append: append stdin to docs/performance.md.
doc_append() {
  [ -f "$DOC" ] || printf '# Performance\n\n' >"$DOC"
  cat >>"$DOC"
}
