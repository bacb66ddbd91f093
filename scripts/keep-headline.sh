#!/usr/bin/env bash
# Keep a full run's headline scenarios (overhead and the streamed turns,
# the canary's set: scripts/stability.sh) as one more point of the spread
# across hours: results/runs/<run id>/ -> results/stability/<date and time>/,
# its CSVs and its manifest, never replacing a point kept before. Then
# STABILITY.md is drawn again from every point. scripts/bench.sh calls it
# after a full run.
#
# Only a finished run's own directory is kept, and the point appears whole
# or not at all (copied beside it, then renamed): a failure left an empty
# or partial point that the next try called "kept already" (issue 66).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/keep-headline.sh results/runs/<run id> (a finished run's directory, with its manifest.json)"
run="${1:?$usage}"
id="$(basename -- "$run")"
if ! [[ $id =~ ^[0-9]{8}t[0-9]{6}-[0-9a-f]{6}$ ]] || [ ! -d "$run" ] || [ ! -f "$run/manifest.json" ]; then
  echo "keep-headline: $run is no run's directory; $usage" >&2
  exit 2
fi
if ! grep -q '"complete": true' "$run/manifest.json" || grep -q '"quick": true' "$run/manifest.json"; then
  echo "keep-headline: $run did not finish, or is a quick look: not a point to keep" >&2
  exit 2
fi
csvs=()
for sc in overhead streaming_turn streaming_turn_anthropic; do
  if [ -f "$run/$sc.csv" ]; then
    csvs+=("$run/$sc.csv")
  fi
done
if [ ${#csvs[@]} -eq 0 ]; then
  echo "keep-headline: $run holds none of the headline scenarios (overhead, streaming_turn, streaming_turn_anthropic)" >&2
  exit 2
fi
dest="results/stability/${id%%-*}"
if [ -e "$dest" ]; then
  if [ -f "$dest/manifests/$id.json" ]; then
    echo "keep-headline: $dest holds run $id already" >&2
    exit 0
  fi
  echo "keep-headline: $dest exists but does not hold run $id; move it aside and try again" >&2
  exit 1
fi
tmp="results/stability/.${id%%-*}.partial"
rm -rf -- "$tmp"
mkdir -p "$tmp/manifests"
cp -- "${csvs[@]}" "$tmp/"
cp -- "$run/manifest.json" "$tmp/manifests/$id.json"
mv -- "$tmp" "$dest"
go run ./runner stability results/stability
