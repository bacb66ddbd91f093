#!/usr/bin/env bash
# Does the order two identical arms are declared in read as a change?
# (issue 62). The A/A pair of examples/gate-NAME.hcl (NAME and NAME-copy,
# nothing planted) as the validation runs it, alone
# (--gateway NAME,NAME-copy), declared as the file has them or with the two
# blocks' names swapped (so the arm declared first, with the first port and
# service, is NAME-copy). Portkey's pair is warmed with 5,000 or 30,000
# requests (four variants), LiteLLM's as its file says (two). Each run goes
# to results/gate/order/VARIANT/runs/<UTC date and time>/ with the exact
# file it ran (gate.hcl; the manifest holds its sha256), then `runner
# gatecheck` writes VARIANT/VALIDATION.md (the verdict, its wall time and
# the start-up and warm-up order tallies).
#
#   scripts/gate-order.sh [portkey|litellm] [N]   N runs of each variant (default 1)
#
# Run it with nothing else on the machine; the runner is built once first.
set -euo pipefail
cd "$(dirname "$0")/.."
what=portkey
if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  what=$1
  shift
fi
case $what in
  portkey) warms=(5000 30000) prefix="" ;;
  litellm) warms=(file) prefix="litellm-" ;;
  *)
    echo "gate-order: $what: name portkey or litellm" >&2
    exit 2 ;;
esac
n=${1:-1}
source scripts/docker-up.sh
bin="${TMPDIR:-/tmp}/gatewaybench-gate-runner"
go build -buildvcs=true -o "$bin" ./runner
variant() { # order warm-up -> the variant's file, beside the original so its paths hold
  local f=examples/.gate-order-$1-$2.hcl
  cp "examples/gate-$what.hcl" "$f"
  if [ "$what" = portkey ] && [ "$2" != 5000 ]; then # 30,000 requests take about 45 s: past the 1-minute default cap
    sed -i -e "s/warmup_requests = 5000/warmup_requests = $2/" \
      -e 's/^  warmup_clients  = 1$/  warmup_clients  = 1\n  warmup_max      = "3m"/' "$f"
  fi
  if [ "$1" = swapped ]; then
    sed -i -e "s/^gateway \"$what\" {/gateway \"$what-swap\" {/" \
      -e "s/^gateway \"$what-copy\" {/gateway \"$what\" {/" \
      -e "s/^gateway \"$what-swap\" {/gateway \"$what-copy\" {/" "$f"
  fi
  echo "$f"
}
trap 'rm -f examples/.gate-order-*.hcl' EXIT
for i in $(seq 1 "$n"); do
  for order in declared swapped; do
    for warm in "${warms[@]}"; do
      file=$(variant $order $warm)
      dir=results/gate/order/$prefix$order-$warm
      [ "$warm" = file ] && dir=results/gate/order/$prefix$order
      run="$dir/runs/$(date -u +%Y%m%dt%H%M%S)"
      echo "gate-order: $what $order, $warm warm-up requests, run $i of $n -> $run" >&2
      "$bin" apply "$file" --gateway "$what,$what-copy" --results "$run"
      cp "$file" "$run/gate.hcl"
    done
  done
done
for d in results/gate/order/$prefix*/; do
  case $(basename "$d") in litellm-*) [ "$what" = litellm ] || continue ;; esac
  "$bin" gatecheck --pair "$what:$what-copy:0%" "$d"
done
