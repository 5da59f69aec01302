#!/usr/bin/env bash
# The test command (README "Two commands"; .ci/run runs it): installs what the tests'
# subjects need when it is missing — the seven real MPI libraries and their headers
# (scripts/install-targets.sh, idempotent) and Chromium for the report.html test — then
# runs every test. On Debian 12, as root (apt-get). `cargo test --workspace` alone
# works too, but fails the tests whose subject is missing (never a silent pass), unless
# MPIT_SKIP_REAL_TARGETS=1 says to skip them knowingly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-targets.sh >/dev/null
if ! command -v chromium >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >&2
fi
cargo test --workspace "$@"
