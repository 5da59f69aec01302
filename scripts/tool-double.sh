#!/usr/bin/env bash
# Stages the reference as a test double for tools linked against MPICH or Intel MPI
# (README, "The reference as a test double for tools"): DIR gets libmpi.so.12 and
# libmpich.so.12, symlinks to the release cdylib, which speaks MPICH's ABI when loaded
# under those names. Then: LD_LIBRARY_PATH=DIR mpivars (or impi_info), optionally with
# MPIT_REFERENCE_FAULTS=... to make it a misbehaving MPI_T.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/tool-double.sh DIR}
cargo build --release --quiet -p mpit-reference
mkdir -p "$dir"
lib=$(pwd)/target/release/libmpit_reference.so
for name in libmpi.so.12 libmpich.so.12; do
  ln -sfn "$lib" "$dir/$name"
done
echo "$dir: libmpi.so.12 libmpich.so.12 -> $lib"
