#!/usr/bin/env bash
# For each spec fault of the reference (`mpit-conform faults`): run the suite on the faulty
# reference with --repro, build every reproducer it wrote against the reference, and run
# it with the fault (must reproduce: exit 1 or a signal) and without (must exit 0).
#
#   cargo build --release -p mpit-conform -p mpit-reference && scripts/repro-faults.sh [DIR]
#
# One line per fault: files written, how many behaved, the cases `repro` has no C for, and
# the files that did not behave (name:with/without). Exit 0; it measures, it does not gate
# (harness/tests/repro.rs gates on three faults).
set -uo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
B=$ROOT/target/release/mpit-conform
LIB=$ROOT/target/release/libmpit_reference.so
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
total=0 good=0
for f in $("$B" faults | awk '{print $1}'); do
    # Every call of the hang fault's function hangs: its run is its --timeouts, its
    # reproducers hang too (a timeout reproduces by hanging, which this loop cannot time).
    [[ $f == hang-in-call ]] && continue
    d=$OUT/$f
    rm -rf "$d"
    MPIT_REFERENCE_FAULTS=$f "$B" --lib "$LIB" --repro --out "$d" -q >/dev/null 2>"$d.err"
    n=0 ok=0 bad=""
    for c in "$d"/repro/*.c; do
        [[ -e $c ]] || continue
        n=$((n + 1))
        if ! "$ROOT/scripts/repro-cc.sh" reference "$c" "${c%.c}.bin" 2>/dev/null; then
            bad="$bad CC:$(basename "$c")"
            continue
        fi
        MPIT_REFERENCE_FAULTS=$f timeout 30 "${c%.c}.bin" >"${c%.c}.with" 2>&1; a=$?
        timeout 30 "${c%.c}.bin" >"${c%.c}.without" 2>&1; b=$?
        if [[ ($a == 1 || $a -gt 128) && $b == 0 ]]; then ok=$((ok + 1)); else bad="$bad $(basename "${c%.c}"):$a/$b"; fi
    done
    total=$((total + n)) good=$((good + ok))
    echo "$f files=$n ok=$ok $(grep -o 'no C translation for.*' "$d.err")$bad"
done
echo "total: $good of $total reproducers reproduce with their fault and not without ($OUT)"
