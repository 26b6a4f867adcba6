#!/usr/bin/env bash
# make demo: the main job on the bundled real data. Needs `odke` on PATH (the Makefile puts
# .venv/bin first). Everything it writes goes under demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=demo-out
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "prepare the bench sets from data/ (no network, no model)"
odke bench prepare text2kgbench data --ontology ont_1_movie --out "$out/runs/movie"
odke bench prepare redocred data --split test --limit 50 --out "$out/runs/redocred"

for system in Vicuna-13B Alpaca-LoRA-13B; do
  step "score the published $system outputs on the movie ontology (official row = the benchmark's scorer)"
  odke eval pipeline --bench "$out/runs/movie" \
    --predictions "$out/runs/movie/competitors/$system/responses.jsonl" \
    --trace "$out/runs/movie/odke.json" --report "$out/$system/report.json" --items "$out/$system/items.jsonl"
done

step "was the difference real? Alpaca-LoRA-13B (A) against Vicuna-13B (B), paired over sentences"
odke eval compare "$out/Alpaca-LoRA-13B/items.jsonl" "$out/Vicuna-13B/items.jsonl" \
  --report "$out/compare.json"

if [ -f examples/baseline/pipeline.py ]; then
  step "a model-free baseline run as a command on the 50-document Re-DocRED set"
  odke eval pipeline --bench "$out/runs/redocred" \
    --cmd "python examples/baseline/pipeline.py {in} {out}" \
    --trace "$out/runs/redocred/odke.json" \
    --report "$out/baseline/report.json" --items "$out/baseline/items.jsonl"
fi

step "written under $out/"
find "$out" -maxdepth 2 -name '*.json*' -not -path '*/runs/*' | sort
