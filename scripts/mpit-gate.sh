#!/usr/bin/env bash
# The release gate every CI integration runs (action.yml, docs/ci/gitlab-ci.yml,
# docs/ci/Jenkinsfile): run mpit-conform on a library, write the reports into one
# directory, and exit as mpit-conform does (0 nothing unexpected, 1 a new fail, crash
# or timeout, 2 could not run). Configured by environment variables, so every CI system
# passes the same things the same way:
#
#   MPIT_LIB        the library to judge (required)
#   MPIT_BASELINE   a report.json(.gz) of an earlier run: fail only on what got worse
#   MPIT_WAIVERS    a waivers.yaml of known findings
#   MPIT_STRICT     "true": SHOULD, robustness and second readings fail too
#   MPIT_LAUNCHER   e.g. "mpiexec -n 4": add the cross-rank consistency check
#   MPIT_ARGS       more options, split on spaces (e.g. "--area strings -j 4")
#   MPIT_OUT        the report directory (default mpit-report); JUnit goes to
#                   $MPIT_OUT/junit.xml
#   MPIT_BIN        the mpit-conform to run (default: the one on PATH)
#   MPIT_SUMMARY    a file to append report.md to (GitHub's $GITHUB_STEP_SUMMARY)
set -uo pipefail

die() { printf 'mpit-gate: %s\n' "$*" >&2; exit 2; }

bin=${MPIT_BIN:-mpit-conform}
command -v "$bin" >/dev/null 2>&1 || die "mpit-conform not found (MPIT_BIN=$bin): install it with cargo install"
[ -n "${MPIT_LIB:-}" ] || die "MPIT_LIB is not set: the library to judge"
out=${MPIT_OUT:-mpit-report}
mkdir -p "$out" || die "cannot create $out"

args=(--lib "$MPIT_LIB" --out "$out" --junit "$out/junit.xml")
[ -n "${MPIT_BASELINE:-}" ] && args+=(--baseline "$MPIT_BASELINE")
[ -n "${MPIT_WAIVERS:-}" ] && args+=(--waivers "$MPIT_WAIVERS")
case "${MPIT_STRICT:-false}" in
  true) args+=(--strict) ;;
  false | "") ;;
  *) die "MPIT_STRICT must be true or false, not ${MPIT_STRICT}" ;;
esac
[ -n "${MPIT_LAUNCHER:-}" ] && args+=(--launcher "$MPIT_LAUNCHER")
# shellcheck disable=SC2206 # split on purpose: a list of options
[ -n "${MPIT_ARGS:-}" ] && args+=(${MPIT_ARGS})

"$bin" "${args[@]}"
rc=$?
if [ -n "${MPIT_SUMMARY:-}" ] && [ -f "$out/report.md" ]; then
  cat "$out/report.md" >>"$MPIT_SUMMARY"
fi
echo "mpit-gate: exit $rc; reports in $out (report.json, report.html, report.md, junit.xml)"
exit "$rc"
