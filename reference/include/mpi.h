/* mpi.h of the reference: the MPI-5.0 standard ABI (mpi_abi.h), so a program written
 * for any MPI (a tool, a reproducer of mpit-conform repro) builds against it unchanged. */
#include "mpit_reference.h"
