#!/usr/bin/env bash
# The regression gate's validation (issue 50; results/gate/README.md): N runs
# (default 20) of examples/gate.hcl, each into results/gate/runs/<UTC date
# and time>/, never replacing an earlier one; then `runner gatecheck` judges,
# in every run, each reference's A/A pair and its planted 5% and 10%
# slowdowns, and writes results/gate/VALIDATION.md, validation.csv and
# gate.png. Run it with nothing else on the machine. The runner is built
# once, before the first run, so no compile runs beside a measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-up.sh
n=${1:-20}
bin="${TMPDIR:-/tmp}/gatewaybench-gate-runner"
go build -o "$bin" ./runner
for i in $(seq 1 "$n"); do
  dir="results/gate/runs/$(date -u +%Y%m%dt%H%M%S)"
  echo "gate-validation: run $i of $n -> $dir" >&2
  "$bin" apply examples/gate.hcl --results "$dir"
done
"$bin" gatecheck --pair ref-go:ref-go-copy:0% --pair ref-go:ref-go-5:5% --pair ref-go:ref-go-10:10% \
  --pair ref-py:ref-py-copy:0% --pair ref-py:ref-py-5:5% --pair ref-py:ref-py-10:10% results/gate
