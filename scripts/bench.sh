#!/usr/bin/env bash
# The main job on a fresh machine: make sure a Docker engine answers
# (installing Debian's docker.io and starting dockerd when needed), then run
# `runner apply` on benchmarks.hcl (or the file and flags given). Each
# gateway's image is built by its HCL `prepare` step the first time, from
# Debian's packages, the npm registry and the Go module proxy, and cached.
# Then the charts, RESULTS.md and the README's results block are drawn
# again from the new CSVs (unless --results sent them elsewhere). A quick
# look (--quick) writes to results/quick/ and draws its charts there: the
# committed results, charts, RESULTS.md and README are left as they are.
# A full run of the whole file also keeps its headline scenarios in
# results/stability/ (scripts/keep-headline.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
if [ $# -eq 0 ] || [[ "${!#}" != *.hcl ]]; then
  set -- "$@" benchmarks.hcl
fi
go run ./runner apply "$@"
case " $* " in
  *" --results"*) ;;
  *" --quick "*)
    go run ./runner charts --results results/quick --out results/quick/charts
    echo "quick look: results/quick/ (CSVs, SUMMARY.md) and results/quick/charts/; not for comparison" ;;
  *)
    # A full run of the whole file is also a point of the spread across
    # hours (results/stability), which RESULTS.md and the README state.
    if [ $# -eq 1 ]; then
      scripts/keep-headline.sh "results/runs/$(ls results/runs | sort | tail -1)"
    fi
    go run ./runner charts ;;
esac
