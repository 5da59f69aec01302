#!/usr/bin/env bash
# Regenerates reports/published/: the suite run against the reference and each of the
# seven real targets (scripts/install-targets.sh), with --strict off and on; per target
# report.json.gz (the committed baseline of harness/tests/suite.rs) and report.md;
# the side-by-side matrix.md (committed) and matrix.html (generated, git-ignored).
#
#   bash scripts/publish-reports.sh            # everything (about 2 minutes here)
#   bash scripts/publish-reports.sh debian-mpich openmpi5   # only these targets, then the matrix
#
# A run that cannot finish (exit 2) stops the script: an incomplete report is no baseline.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release -p mpit-conform -p mpit-reference
bin=target/release/mpit-conform
pub=reports/published
list=.targets/targets.txt
[ -f "$list" ] || { echo "publish-reports: no $list; run scripts/install-targets.sh" >&2; exit 2; }

# name path, the reference first
# Paths as a reader can use them: inside the checkout relative to it (.targets/..., target/...),
# system libraries as installed (/usr/lib/...); never this machine's checkout path.
targets=("reference target/release/libmpit_reference.so")
while read -r name path _abi; do targets+=("$name ${path#"$PWD"/}"); done < "$list"

only=("$@")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for t in "${targets[@]}"; do
  read -r name path <<<"$t"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  for mode in default strict; do
    flags=(); dest="$pub/$name"
    if [ "$mode" = strict ]; then flags=(--strict); dest="$pub/$name/strict"; fi
    mkdir -p "$dest"
    start=$(date +%s)
    rc=0
    "$bin" --lib "$path" -q "${flags[@]}" --out "$scratch/$name-$mode" >/dev/null || rc=$?
    if [ "$rc" -ge 2 ]; then
      echo "publish-reports: $name ($mode) did not finish (exit $rc)" >&2
      exit 2
    fi
    # -n: no name or time in the gzip header, so an unchanged report is an unchanged file.
    gzip -9 -n <"$scratch/$name-$mode/report.json" >"$dest/report.json.gz"
    cp "$scratch/$name-$mode/report.md" "$dest/report.md"
    echo "$name ($mode): exit $rc, $(( $(date +%s) - start )) s"
  done
done

matrix() { # out-dir, then the report file under each target
  local out=$1 file=$2 args=()
  for t in "${targets[@]}"; do
    read -r name _ <<<"$t"
    [ -f "$pub/$name/$file" ] && args+=("$name=$pub/$name/$file")
  done
  "$bin" matrix --out "$out" "${args[@]}" >/dev/null
}
matrix "$pub" report.json.gz
matrix "$pub/strict" strict/report.json.gz
echo "matrix: $pub/matrix.md $pub/strict/matrix.md"
