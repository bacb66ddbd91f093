#!/usr/bin/env bash
# The litellm-rs image's build context: the crate's `gateway` binary at one
# pinned version with the SQLite storage feature (the binary requires a
# storage feature; this arm runs with the database off), by
# gateways/cargo-closure.sh (cargo install --locked, then FROM scratch). It
# needs Rust 1.91.1 or later; the first build takes about 17 minutes on 2
# cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../cargo-closure.sh" "$here" litellm-rs 0.9.0 gateway --bin gateway --features sqlite
