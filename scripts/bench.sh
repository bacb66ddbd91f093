#!/usr/bin/env bash
# The main job on a fresh machine: make sure a Docker engine answers
# (installing Debian's docker.io and starting dockerd when needed), then run
# `runner apply` on benchmarks.hcl (or the file and flags given). Each
# gateway's image is built by its HCL `prepare` step the first time, from
# Debian's packages, the npm registry and the Go module proxy, and cached.
# Then the charts, RESULTS.md and the README's results block are drawn
# again from the new CSVs (unless --results sent them elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
if [ $# -eq 0 ] || [[ "${!#}" != *.hcl ]]; then
  set -- "$@" benchmarks.hcl
fi
go run ./runner apply "$@"
case " $* " in
  *" --results"*) ;;
  *) go run ./runner charts ;;
esac
