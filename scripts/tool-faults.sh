#!/usr/bin/env bash
# Rewrites README.md's table "The reference as a test double for tools": runs Debian's
# and the MPICH wheel's mpivars and Intel's impi_info against the staged reference
# (scripts/tool-double.sh) clean and under each fault of harness/tests/tool_double.rs,
# and classifies what each tool does. Without MPIT_BLESS the same test only checks
# that the README is current (scripts/test.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
MPIT_BLESS=1 cargo test --release -p mpit-conform --test tool_double the_readme_fault_table_is_current
git --no-pager diff --stat README.md
