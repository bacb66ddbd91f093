#!/usr/bin/env bash
# The regression gate's validation (results/gate/README.md): N runs of one
# validation file, each into <dir>/runs/<UTC date and time>/, never
# replacing an earlier one; then `runner gatecheck` judges every run's
# pairs and writes <dir>/VALIDATION.md, validation.csv and gate.png.
#
#   scripts/gate-validation.sh [reference|portkey|litellm|one-api] [N]
#
# reference (the default; issue 50): examples/gate.hcl, our two reference
# gateways, into results/gate/. portkey, litellm and one-api (issue 62):
# examples/gate-NAME.hcl, the gateway's production service as an A/A pair
# and with a 10% slowdown planted in its process (beside it, for one-api),
# into
# results/gate/NAME/. Run it with nothing else on the machine. The runner
# is built once, before the first run, so no compile runs beside a
# measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
what=reference
if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  what=$1
  shift
fi
n=${1:-20}
case $what in
  reference)
    file=examples/gate.hcl dir=results/gate
    pairs=(ref-go:ref-go-copy:0% ref-go:ref-go-5:5% ref-go:ref-go-10:10% ref-py:ref-py-copy:0% ref-py:ref-py-5:5% ref-py:ref-py-10:10%) ;;
  portkey | litellm | one-api)
    file=examples/gate-$what.hcl dir=results/gate/$what
    pairs=("$what:$what-copy:0%" "$what:$what-10:10%") ;;
  *)
    echo "gate-validation: $what: name reference, portkey, litellm or one-api" >&2
    exit 2 ;;
esac
source scripts/docker-up.sh
bin="${TMPDIR:-/tmp}/gatewaybench-gate-runner"
go build -buildvcs=true -o "$bin" ./runner # stamped: each run's manifest names the code that measured
for i in $(seq 1 "$n"); do
  run="$dir/runs/$(date -u +%Y%m%dt%H%M%S)"
  echo "gate-validation: $what, run $i of $n -> $run" >&2
  "$bin" apply "$file" --results "$run"
done
args=()
for p in "${pairs[@]}"; do args+=(--pair "$p"); done
"$bin" gatecheck "${args[@]}" "$dir"
