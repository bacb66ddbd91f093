#!/usr/bin/env bash
# The LangDB AI gateway image's build context: the crate's `ai-gateway`
# binary at one pinned version, with the RUSTFLAGS its README gives, by
# gateways/cargo-closure.sh (cargo install --locked, then FROM scratch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The two cfg flags are the crate README's install command: its tracing and
# AWS SDK dependencies compile unstable APIs it uses only behind them.
RUSTFLAGS="--cfg tracing_unstable --cfg aws_sdk_unstable" \
  "$here/../cargo-closure.sh" "$here" ai-gateway 0.3.2 ai-gateway
