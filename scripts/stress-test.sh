#!/usr/bin/env bash
# Do the tests hold on a busy machine? Runs scripts/test.sh N times (default
# 5) in a clean clone of this repository's HEAD while one busy loop per CPU
# keeps every core full, and stops at the first failure. The busy loops are
# bounded (an hour at most) and stopped on exit.
set -euo pipefail
n=${1:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
burners=()
cleanup() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q "$src" "$work/clone"
for _ in $(seq "$(nproc)"); do
  timeout 3600 sh -c 'while :; do :; done' &
  burners+=($!)
done
echo "$(nproc) busy loops started; running the tests $n times in $work/clone"
for i in $(seq "$n"); do
  start=$(date +%s)
  if ! (cd "$work/clone" && bash scripts/test.sh > "$work/run-$i.log" 2>&1); then
    tail -50 "$work/run-$i.log"
    echo "run $i of $n FAILED under load after $(( $(date +%s) - start ))s"
    exit 1
  fi
  echo "run $i of $n passed under load in $(( $(date +%s) - start ))s"
done
echo "all $n runs passed under load"
