#!/usr/bin/env bash
# Times the pure-Go tokenizer against the Hugging Face Rust `tokenizers`
# library (through tokref's Node binding) on the same text, one core each.
#
# Usage: bench/tokenize.sh TOKREF_DIR [TEXT_FILE]
#   TOKREF_DIR: the reference harness, which you supply (it is not in this
#               repository): oracle.js around Hugging Face's tokenizers Node
#               binding, after `npm install`, with the vocabularies in
#               TOKREF_DIR/tok/NAME/tokenizer.json. What it must do:
#               docs/perf-tokenize.md, "The reference harness".
#   TEXT_FILE:  default: the public-domain natural corpus from testdata, ~1 MB.
# Env: CHUNK (default 4096), CPU (default 0).
set -euo pipefail
tokref=$(cd "${1:?usage: bench/tokenize.sh TOKREF_DIR [TEXT_FILE]}" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
chunk=${CHUNK:-4096}
cpu=${CPU:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
text=${2:-}
if [ -z "$text" ]; then
  text=$work/natural.txt
  zcat "$repo/testdata/tokenizers/corpora/natural.jsonl.gz" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n"))if(l)process.stdout.write(JSON.parse(l).text)})' >"$text"
fi
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/gotok" ./bench/tokenize)
printf '%-12s %12s %12s %8s %8s\n' tokenizer rust_tok/s go_tok/s speedup tokens
for name in qwen3 llama3 llama3_1 gptoss gpt4o gpt35turbo deepseek_v3 claude llama2 gemma3 gemini; do
  tj=$tokref/tok/$name/tokenizer.json
  [ -f "$tj" ] || continue
  rust=$(cd "$tokref" && RAYON_NUM_THREADS=1 taskset -c "$cpu" node oracle.js --tokenizer "$tj" --bench "$text" --chunk "$chunk" 2>&1 >/dev/null | tail -1)
  gol=$(GOMAXPROCS=1 taskset -c "$cpu" "$work/gotok" --tokenizer "$tj" --bench "$text" --chunk "$chunk")
  node -e '
    const [n, r, g] = process.argv.slice(1); const R = JSON.parse(r), G = JSON.parse(g);
    if (R.tokens !== G.tokens) console.error(`${n}: token counts differ: rust ${R.tokens}, go ${G.tokens}`);
    console.log(`${n.padEnd(12)} ${String(R.tokens_per_s).padStart(12)} ${String(G.tokens_per_s).padStart(12)} ${(G.tokens_per_s / R.tokens_per_s).toFixed(2).padStart(7)}x ${String(G.tokens).padStart(8)}`);
  ' "$name" "$rust" "$gol"
done
