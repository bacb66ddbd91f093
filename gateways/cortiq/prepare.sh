#!/usr/bin/env bash
# The Cortiq Gateway image's build context: the crate cortiq-gateway's
# binary at one pinned version, without its default feature (open-browser:
# a desktop browser on first run, nothing a server uses), by
# gateways/cargo-closure.sh (cargo install --locked, then FROM scratch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../cargo-closure.sh" "$here" cortiq-gateway 0.2.49 cortiq-gateway --no-default-features
