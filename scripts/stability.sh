#!/usr/bin/env bash
# The canary that measures the day-to-day spread (issue 47): one run of the
# headline scenarios (overhead and streamed turns on both APIs, one client
# and 16, every measured arm) into results/stability/<UTC date and time>/,
# never replacing an earlier one, then `runner stability` writes
# results/stability/STABILITY.md from every run kept there: each run's
# figures, how far they spread, and how often one lies inside another's
# interval against chance. Run it once on each day the project is worked
# on, with nothing else on the machine. Extra flags go to `runner apply`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
dir="results/stability/$(date -u +%Y%m%dt%H%M%S)"
# A failed run is no point: its rows move to <dir>.failed, kept as evidence
# under a name `runner stability` does not read (it left an empty point:
# issue 66).
if ! go run ./runner apply --scenario overhead,streaming_turn,streaming_turn_anthropic --results "$dir" "$@" benchmarks.hcl; then
  if [ -e "$dir" ]; then
    mv -- "$dir" "$dir.failed"
    echo "stability: the run failed; its rows are in $dir.failed, not a point" >&2
  fi
  exit 1
fi
if [ "$(find results/stability -mindepth 1 -maxdepth 1 -type d | wc -l)" -ge 2 ]; then
  go run ./runner stability results/stability
else
  echo "stability: $dir kept; STABILITY.md comes with the second run" >&2
fi
