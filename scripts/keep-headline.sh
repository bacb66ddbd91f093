#!/usr/bin/env bash
# Keep a full run's headline scenarios (overhead and the streamed turns,
# the canary's set: scripts/stability.sh) as one more point of the spread
# across hours: results/runs/<run id>/ -> results/stability/<date and time>/,
# its CSVs and its manifest, never replacing a point kept before. Then
# STABILITY.md is drawn again from every point. scripts/bench.sh calls it
# after a full run.
set -euo pipefail
cd "$(dirname "$0")/.."
run="${1:?usage: scripts/keep-headline.sh results/runs/<run id>}"
id="$(basename "$run")"
dest="results/stability/${id%%-*}"
if [ -e "$dest" ]; then
  echo "keep-headline: $dest is kept already" >&2
  exit 0
fi
mkdir -p "$dest/manifests"
for sc in overhead streaming_turn streaming_turn_anthropic; do
  if [ -f "$run/$sc.csv" ]; then
    cp "$run/$sc.csv" "$dest/"
  fi
done
cp "$run/manifest.json" "$dest/manifests/$id.json"
go run ./runner stability results/stability
