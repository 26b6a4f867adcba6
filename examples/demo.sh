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

step "a model-backed run from recorded answers (no network, no key): examples/e2e, copied to $out/e2e"
mkdir -p "$out/e2e"
cp -R examples/e2e/. "$out/e2e/"
rm -rf "$out/e2e/out" "$out/e2e/.odke-cache"
odke run "$out/e2e/odke.yaml"

step "the same config three ways against its labels: what grounding and corroboration moved"
odke eval ablation --config "$out/e2e/odke.yaml" --labels "$out/e2e/gold.jsonl"

step "another system's triples through the Validator: the + validator row and what it refused"
odke eval pipeline --labels examples/triples/gold.jsonl --documents examples/triples/texts \
  --ontology examples/triples/ontology.json --predictions examples/triples/triples.jsonl \
  --config examples/triples/odke.yaml --validator --report "$out/validator/report.json"

step "written under $out/"
find "$out" -maxdepth 2 -name '*.json*' -not -path '*/runs/*' | sort
